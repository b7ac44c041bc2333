// The keys page's behaviour, served from /account/keys.js so the pages need no inline script
// (the Content-Security-Policy allows scripts from the site only).
const copy = document.getElementById("copy-key");
if (copy) {
  copy.addEventListener("click", async (event) => {
    const field = document.getElementById("new-key-value");
    try {
      await navigator.clipboard.writeText(field.value);
    } catch (err) {
      field.select();
      document.execCommand("copy");
    }
    event.target.textContent = "Copied";
  });
}
for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", (event) => {
    if (!confirm(form.dataset.confirm)) event.preventDefault();
  });
}
