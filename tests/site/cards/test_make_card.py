"""The site's Open Graph card (bangscore/site/cards/make_card.py): the PNG it writes."""

from __future__ import annotations

from itertools import groupby

import pytest
from PIL import Image

from bangscore.site.cards.make_card import CARD, main

BACKGROUND = (0x15, 0x18, 0x1D)
WHITE = (0xFF, 0xFF, 0xFF)
PITCH = (0xD8, 0xDD, 0xE3)
PILLS = [(0x1A, 0x7F, 0x37), (0x0B, 0x5C, 0xAD), (0x6E, 0x5A, 0x00), (0xA1, 0x1D, 0x1D)]


@pytest.fixture(scope="module")
def card(tmp_path_factory: pytest.TempPathFactory) -> Image.Image:
    path = tmp_path_factory.mktemp("card") / "og-card.png"
    main(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(path)
    image.load()
    return image


def test_the_card_is_a_1200_by_630_rgb_png(card: Image.Image) -> None:
    assert (card.format, card.mode, card.size) == ("PNG", "RGB", (1200, 630))


def test_the_shipped_card_is_the_one_the_code_draws(card: Image.Image) -> None:
    shipped = Image.open(CARD).convert("RGB")
    assert shipped.size == card.size
    assert shipped.tobytes() == card.tobytes()


@pytest.mark.parametrize(
    ("box", "colour"),
    [
        ((0, 0, 1200, 110), BACKGROUND),
        ((0, 540, 1200, 630), BACKGROUND),
    ],
    ids=["above-the-name", "below-the-tiers"],
)
def test_the_margins_are_plain_background(
    card: Image.Image, box: tuple[int, int, int, int], colour: tuple[int, int, int]
) -> None:
    assert card.crop(box).getcolors() == [(card.crop(box).width * card.crop(box).height, colour)]


@pytest.mark.parametrize(
    ("box", "colour", "least"),
    [
        ((80, 120, 1200, 270), WHITE, 5_000),
        ((84, 280, 1200, 400), PITCH, 2_000),
    ],
    ids=["name-in-white", "pitch-in-grey"],
)
def test_the_text_is_drawn_in_its_colour(
    card: Image.Image, box: tuple[int, int, int, int], colour: tuple[int, int, int], least: int
) -> None:
    counts = {c: n for n, c in card.crop(box).getcolors(maxcolors=1_000_000) or []}
    assert counts.get(colour, 0) >= least


def test_the_four_tier_pills_run_left_to_right_in_tier_order(card: Image.Image) -> None:
    # A row inside the pills (below their 10 px rounded corners) and above their words.
    row = [card.getpixel((x, 460)) for x in range(1200)]
    runs = [(colour, len(list(pixels))) for colour, pixels in groupby(row)]
    assert [colour for colour, _ in runs] == [
        BACKGROUND, PILLS[0], BACKGROUND, PILLS[1], BACKGROUND, PILLS[2], BACKGROUND, PILLS[3],
        BACKGROUND,
    ]  # fmt: skip
    assert runs[0][1] == 84  # the first pill starts under the pitch's left edge
    gaps = [length for colour, length in runs[2:-1:2]]
    assert gaps == [23, 23, 23]  # 24 px apart, and Pillow's rectangles include their right edge
    widths = {
        name: runs[1 + 2 * i][1] for i, name in enumerate(["banger", "worth it", "fair", "skip"])
    }
    assert max(widths, key=widths.__getitem__) == "worth it"
    assert min(widths, key=widths.__getitem__) == "fair"
