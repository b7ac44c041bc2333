"""Draw the site's Open Graph card, ``og-card.png`` (1200x630, the size Facebook, X and
LinkedIn crop to), once, by hand: ``.venv/bin/python -m bangscore.site.cards.make_card``.

One shared raster card rather than one per game: a card per game at build time would be
39,503 PNGs (tens of seconds and hundreds of MB per build) for previews that also carry the
game's name, score and tier in ``og:title``; rendering per request would put an image library
on the serving path. Pillow is needed only to redraw it, so it is not a runtime dependency.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONTS = Path("/usr/share/fonts/truetype/dejavu")
TIERS = [("banger", "#1a7f37"), ("worth it", "#0b5cad"), ("fair", "#6e5a00"), ("skip", "#a11d1d")]


def main() -> None:
    """Draw the card next to this file."""
    card = Image.new("RGB", (1200, 630), "#15181d")
    draw = ImageDraw.Draw(card)
    bold = ImageFont.truetype(str(FONTS / "DejaVuSans-Bold.ttf"), 120)
    text = ImageFont.truetype(str(FONTS / "DejaVuSans.ttf"), 44)
    small = ImageFont.truetype(str(FONTS / "DejaVuSans-Bold.ttf"), 36)
    draw.text((80, 120), "BangScore", font=bold, fill="#ffffff")
    draw.text((84, 280), "How much real game you get", font=text, fill="#d8dde3")
    draw.text((84, 336), "for the price, rated 0-100", font=text, fill="#d8dde3")
    x = 84
    for word, fill in TIERS:
        width = int(draw.textlength(word, font=small)) + 48
        draw.rounded_rectangle((x, 450, x + width, 520), radius=10, fill=fill)
        draw.text((x + 24, 464), word, font=small, fill="#ffffff")
        x += width + 24
    card.save(Path(__file__).with_name("og-card.png"), optimize=True)


if __name__ == "__main__":
    main()
