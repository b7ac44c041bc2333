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
SIZE = (1200, 630)
BACKGROUND = "#15181d"
TIERS = [("banger", "#1a7f37"), ("worth it", "#0b5cad"), ("fair", "#6e5a00"), ("skip", "#a11d1d")]
# The tier pills' row: top and bottom edges and the left edge of the first pill, in pixels.
PILL_TOP, PILL_BOTTOM, PILL_LEFT = 450, 520, 84
CARD = Path(__file__).with_name("og-card.png")


def draw_card() -> Image.Image:
    """Return the card: an RGB image of :data:`SIZE` on :data:`BACKGROUND` with the name, the
    one-line pitch and the four tiers as coloured pills. Needs the DejaVu fonts in
    :data:`FONTS` (Debian's fonts-dejavu-core); raises OSError without them."""
    card = Image.new("RGB", SIZE, BACKGROUND)
    draw = ImageDraw.Draw(card)
    bold = ImageFont.truetype(str(FONTS / "DejaVuSans-Bold.ttf"), 120)
    text = ImageFont.truetype(str(FONTS / "DejaVuSans.ttf"), 44)
    small = ImageFont.truetype(str(FONTS / "DejaVuSans-Bold.ttf"), 36)
    draw.text((80, 120), "BangScore", font=bold, fill="#ffffff")
    draw.text((84, 280), "How much real game you get", font=text, fill="#d8dde3")
    draw.text((84, 336), "for the price, rated 0-100", font=text, fill="#d8dde3")
    x = PILL_LEFT
    for word, fill in TIERS:
        width = pill_width(draw, word, small)
        draw.rounded_rectangle((x, PILL_TOP, x + width, PILL_BOTTOM), radius=10, fill=fill)
        draw.text((x + 24, 464), word, font=small, fill="#ffffff")
        x += width + 24
    return card


def pill_width(draw: ImageDraw.ImageDraw, word: str, font: ImageFont.FreeTypeFont) -> int:
    """Given a drawing, a tier's word and its font, return its pill's width in pixels: the
    word's advance plus 24 px of padding each side."""
    return int(draw.textlength(word, font=font)) + 48


def main(path: Path = CARD) -> None:
    """Draw the card and write it as an optimized PNG to ``path`` (default: next to this
    file, where the site serves it from)."""
    draw_card().save(path, optimize=True)


if __name__ == "__main__":
    main()
