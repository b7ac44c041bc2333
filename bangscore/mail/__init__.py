"""The watch mail: the signed links a watch email carries (:mod:`~bangscore.mail.links`, which
the server checks: the one module here it imports), the emails rendered from templates
(:mod:`~bangscore.mail.messages`), SMTP (:mod:`~bangscore.mail.smtp`), the alerts run
(:mod:`~bangscore.mail.alerts`) and local development's mail folder
(:mod:`~bangscore.mail.folder`). Importing this package loads none of them."""
