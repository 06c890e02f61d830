"""Tests of `meshmem demo` (python/meshmem/demo.py): one quick run of every section, checked
for its presence, its format and its verification (no performance figure is checked), and the
demo's handling of a section that fails, does not verify or cannot run here (fake sections, no
program started)."""
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem import amt_cli, apps_run, demo, sort_cli  # noqa: E402
from meshmem.cli import main  # noqa: E402
from meshmem.osu import BenchError  # noqa: E402

HEADINGS = ["distributed counting sort", "sharing averaged parameters", "distributed 3-D FFT",
            "8-byte all-to-all", "shallow water", "GEMM", "convolution",
            "sort and average across 2 virtual hosts"]
SPEEDUP = re.compile(r"\d × (faster|slower) than ")


def sections(text: str) -> dict:
    """'## N. heading' -> the lines under it, in order."""
    out, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^## (\d+)\. (.*)$", line)
        if m:
            current = out.setdefault(m.group(2), [])
        elif line.startswith("## "):
            current = None
        elif current is not None and line.strip():
            current.append(line)
    return out


def short_lines_ok(lines: list, mpi: bool, most: int = 2) -> None:
    """A short section: one or two lines (conv: one per layer, three), each verified, each with
    a speed-up when OpenMPI ran."""
    assert 1 <= len(lines) <= most, lines
    for line in lines:
        assert line.endswith("; verified: yes"), line
        if mpi:
            assert SPEEDUP.search(line), line


def test_demo_quick(built, tmp_path, capsys):
    rc = main(["demo", "--quick", "--ranks", "2", "--out", str(tmp_path)])
    text = capsys.readouterr().out
    assert rc == 0, text
    doc = json.loads((tmp_path / "demo.json").read_text())
    assert {r["variant"] for r in doc["sort"] + doc["sort_ghc"]} == set(sort_cli.VARIANTS)
    assert (tmp_path / "sort.png").exists() and (tmp_path / "average.png").exists()
    assert doc["failed"] == {}
    found = sections(text)
    # the runtime, not the scheduler: compute-bound sections on at most the cores; the GHC
    # parts need a 2 x 2 grid, and their lines say what sharing the cores means
    cores = apps_run.cores()
    for key in ("fft", "shallow", "gemm", "conv"):
        assert all(r["ranks"] <= max(2, cores) for r in doc.get(key) or []), key
    ghc = [x for x in found[next(t for t in found if t.startswith(HEADINGS[1]))]
           if ", GHC, " in x]
    assert len(ghc) == 4 and all(("share" in x) == (4 > cores) for x in ghc), ghc
    mpi = apps_run.openmpi_available()[0]
    if mpi:  # the OpenMPI settings of every part are recorded and printed
        assert (doc["openmpi"]["sort"]["mca"].get("mpi_yield_when_idle") == "1") == (2 > cores)
        assert (doc["openmpi"]["sort_ghc"]["mca"].get("mpi_yield_when_idle") == "1") == (4 > cores)
        assert re.search(r"^# OpenMPI twin: ", text, re.M)
    assert [next(i for i, h in enumerate(HEADINGS) if title.startswith(h))
            for title in found] == list(range(len(HEADINGS)))
    by_key = dict(zip(["fft", "amt", "shallow", "gemm", "conv", "vhosts"], list(found.values())[2:]))
    for key, lines in by_key.items():
        keys = ["sort_vhosts", "average_vhosts"] if key == "vhosts" else [key]
        if all(k in doc["skipped"] for k in keys):  # not built, or no virtual cluster here
            assert lines == [f"# not run: {doc['skipped'][keys[0]]}"]
            continue
        for k in keys:
            assert doc[k] and all(r["verified"] == 1 for r in doc[k]), k
        if key == "vhosts":
            assert len(lines) == 2 and all("on the same cluster" in x for x in lines if mpi)
            assert all(line.endswith("; verified: yes") for line in lines)
        else:
            short_lines_ok(lines, mpi, 3 if key == "conv" else 2)
    if "sort_vhosts" in doc["skipped"]:
        assert doc["skipped"]["sort_vhosts"] == demo.vhosts_unavailable()


def fake_part(key, measure, lines=lambda rows: [f"{rows[0]['variant']} ran"]):
    """A part that starts nothing: amt's command line and checks, and @p measure."""
    return demo.Part(key, amt_cli.COMMAND, lambda s: {"vs": "none"}, measure, lines)


def test_demo_failures_are_one_line_and_the_status(monkeypatch, tmp_path, capsys):
    def fails(a, launch):
        raise BenchError("amt on 2 ranks failed (exit 1): meshrun -n 2 amt\nsome output\n"
                         "amt: slot 3 holds 7, expected 8")
    monkeypatch.setattr(demo, "SECTIONS", [
        demo.Section("broken", [fake_part("broken", fails)]),
        demo.Section("wrong", [fake_part("wrong", lambda a, l: ([{"variant": "w", "verified": 0}],
                                                               []))]),
        demo.Section("right", [fake_part("right", lambda a, l: ([{"variant": "r", "verified": 1}],
                                                               ["a note"]))]),
        demo.Section("absent", [fake_part("absent", fails)], lambda: "needs a unicorn"),
    ])
    assert main(["demo", "--ranks", "2", "--out", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    found = sections(out)
    assert found["broken"] == []
    assert found["wrong"] == ["w ran; verified: NO"]
    assert found["right"] == ["r ran; verified: yes"]
    assert found["absent"] == ["# not run: needs a unicorn"]
    assert "# note: right: a note" in out
    assert "every section verified: NO" in out
    reason = ("amt on 2 ranks failed (exit 1): meshrun -n 2 amt ... amt: slot 3 holds 7, "
              "expected 8")
    assert f"meshmem demo: broken failed: {reason}\n" in err
    assert err.splitlines()[-1] == (f"meshmem demo: failed: broken: {reason}; wrong: a result "
                                    "did not verify")
    doc = json.loads((tmp_path / "demo.json").read_text())
    assert doc["skipped"] == {"absent": "needs a unicorn"}
    assert set(doc["failed"]) == {"broken", "wrong"}


def test_demo_all_sections_right_is_status_0(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(demo, "SECTIONS", [
        demo.Section("right", [fake_part("right", lambda a, l: ([{"variant": "r", "verified": 1}],
                                                               []))]),
        demo.Section("absent", [fake_part("absent", None)], lambda: "needs a unicorn")])
    assert main(["demo", "--ranks", "2", "--out", str(tmp_path)]) == 0
    assert "every section verified: yes" in capsys.readouterr().out
