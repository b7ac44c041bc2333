"""The storefront's language names as language tags (docs/API.md#platform-facets): the
vocabulary of the ``languages`` field and of the ``language`` and ``audio`` list filters."""

from __future__ import annotations

from typing import Final

# The storefront's language names (Steam's API language names) as ISO 639-1 codes; Steam's
# Chinese scripts, Brazilian Portuguese and Latin American Spanish as BCP 47 tags, and the
# languages ISO 639-1 has no code for by their ISO 639-2/3 code (fil, sco, kok, ckb, prs, chr,
# quc), as BCP 47 writes them. ``sc_schinese`` (Steam China), ``korean`` and ``slovakian`` are
# the few records' variants of ``schinese``, ``koreana`` and ``slovak``.
LANGUAGE_CODES: Final[dict[str, str]] = {
    "english": "en", "french": "fr", "german": "de", "italian": "it", "spanish": "es",
    "latam": "es-419", "schinese": "zh-Hans", "sc_schinese": "zh-Hans", "tchinese": "zh-Hant",
    "japanese": "ja", "koreana": "ko", "korean": "ko", "russian": "ru", "portuguese": "pt",
    "brazilian": "pt-BR", "polish": "pl", "turkish": "tr", "dutch": "nl", "ukrainian": "uk",
    "czech": "cs", "thai": "th", "swedish": "sv", "hungarian": "hu", "arabic": "ar",
    "danish": "da", "finnish": "fi", "norwegian": "no", "vietnamese": "vi", "romanian": "ro",
    "greek": "el", "bulgarian": "bg", "indonesian": "id", "hindi": "hi", "catalan": "ca",
    "malay": "ms", "slovak": "sk", "slovakian": "sk", "serbian": "sr", "hebrew": "he",
    "croatian": "hr", "filipino": "fil", "lithuanian": "lt", "belarusian": "be",
    "latvian": "lv", "persian": "fa", "estonian": "et", "basque": "eu", "icelandic": "is",
    "galician": "gl", "slovenian": "sl", "kazakh": "kk", "afrikaans": "af", "bangla": "bn",
    "welsh": "cy", "georgian": "ka", "azerbaijani": "az", "swahili": "sw", "albanian": "sq",
    "uzbek": "uz", "irish": "ga", "luxembourgish": "lb", "urdu": "ur", "bosnian": "bs",
    "tamil": "ta", "macedonian": "mk", "zulu": "zu", "maori": "mi", "gurmukhi": "pa",
    "shahmukhi": "pa-Arab", "gujarati": "gu", "nepali": "ne", "armenian": "hy", "telugu": "te",
    "igbo": "ig", "xhosa": "xh", "mongolian": "mn", "hausa": "ha", "scots": "sco",
    "marathi": "mr", "tajik": "tg", "malayalam": "ml", "kannada": "kn", "kyrgyz": "ky",
    "sotho": "st", "tatar": "tt", "sinhala": "si", "yoruba": "yo", "turkmen": "tk",
    "maltese": "mt", "uyghur": "ug", "kinyarwanda": "rw", "amharic": "am", "sindhi": "sd",
    "odia": "or", "assamese": "as", "khmer": "km", "quechua": "qu", "konkani": "kok",
    "sorani": "ckb", "tigrinya": "ti", "valencian": "ca-valencia", "dari": "prs",
    "tswana": "tn", "cherokee": "chr", "kiche": "quc", "wolof": "wo",
}  # fmt: skip
LANGUAGE_TAGS: Final = tuple(sorted(set(LANGUAGE_CODES.values())))
"""Every language tag a record may carry, sorted: what the ``language`` and ``audio`` filters
accept."""

# How the browse form names a tag where the storefront's name is not the English name.
_LABELS: Final = {
    "zh-Hans": "Chinese (Simplified)",
    "zh-Hant": "Chinese (Traditional)",
    "pt-BR": "Portuguese (Brazil)",
    "es-419": "Spanish (Latin America)",
    "ko": "Korean",
    "pa": "Punjabi (Gurmukhi)",
    "pa-Arab": "Punjabi (Shahmukhi)",
    "ckb": "Kurdish (Sorani)",
    "quc": "K'iche'",
    "ca-valencia": "Valencian",
}
LANGUAGE_LABELS: Final[dict[str, str]] = {
    tag: _LABELS.get(tag) or next(n for n, t in LANGUAGE_CODES.items() if t == tag).title()
    for tag in LANGUAGE_TAGS
}
"""Each tag's name in English, as the browse form offers it."""
