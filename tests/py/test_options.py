"""The shared parsers of every `meshmem` command (meshmem/cli/options.py): sizes and counts in the
runtime's syntax (src/util/mm_size.h, tested in tests/c/unit_pieces.c), and the most square
grid (src/util/mm_grid.h)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from meshmem.cli import options
from meshmem.cli.options import UserError


@pytest.mark.parametrize("text, value", [
    ("8", 8), ("4K", 4096), ("4KiB", 4096), ("1m", 1 << 20), ("2G", 2 << 30), ("3T", 3 << 40),
    ("16MB", 16 << 20), ("8B", 8), (" 64 K ", 64 << 10), ("1.5K", 1536), ("0.5M", 512 << 10),
    ("1e3", 1000), ("0x10", 16), ("2^24", 1 << 24), ("2^10K", 1 << 20), ("0", 0),
    ("9007199254740993", 9007199254740993),  # exact past a double's 53 bits
    ("9223372036854775807", (1 << 63) - 1), ("8388607T", 8388607 << 40),
])
def test_parse_size_accepts(text, value):
    assert options.parse_size(text) == value


@pytest.mark.parametrize("text", [
    "", "eight", "K", "5i", "4KK", "4,5", "4K x", "-1", "-1K", "nan", "inf", "2^", "2^63",
    "3^4", "9223372036854775808", "8388608T",
])
def test_parse_size_rejects_naming_the_option_and_value(text):
    with pytest.raises(UserError) as e:
        options.parse_size(text, "--records")
    assert str(e.value).startswith(f"--records {text!r} is not a size or count")


def test_parse_sizes_names_the_option():
    assert options.parse_sizes("--sizes", "8, 1K,64K") == [8, 1024, 65536]
    with pytest.raises(UserError, match=r"^--sizes: size 'x' is not"):
        options.parse_sizes("--sizes", "8,x")


def test_most_square():
    assert [options.most_square(n) for n in (1, 2, 4, 6, 7, 8, 12, 36, 1000)] == [
        (1, 1), (2, 1), (2, 2), (3, 2), (7, 1), (4, 2), (4, 3), (6, 6), (40, 25)]
    for n in range(1, 2049):  # the largest divisor at most sqrt(n) is the short side
        kx, ky = options.most_square(n)
        assert kx * ky == n and ky <= kx
        assert all(n % d for d in range(ky + 1, int(n ** 0.5) + 1))
