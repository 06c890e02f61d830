"""The model against this machine (docs/model.md, "The model on the virtual cluster"): the
two-level fabric of the virtual cluster, its calibrations, and `meshmem model validate
--measured` in its fast form. No timing is asserted (the machine is shared): the table must be
produced, complete and well formed."""
import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from meshmem.bench import measured
from meshmem.cli import main as meshmem_main
from meshmem.model import cost, load_fabric, resolve_fabric_path
from meshmem.model.fabric import FabricError


def vcluster(hosts: int, per_host: int):
    return load_fabric(resolve_fabric_path("vcluster-tcp"),
                       measured.Shape(hosts, per_host).overrides())


def test_two_levels_charge_each_link_its_own_figures():
    f = vcluster(2, 2)
    shm, net = f.link_of(0), f.link_of(1)
    L = 4 * 65536  # per rank: 64 KiB to each of 4 ranks
    # every rank sends and receives at once: each link at its duplex rate
    expected = ((shm.hop_latency_s + L / 2 / shm.duplex_bytes_per_s) +
                (net.hop_latency_s + L / 2 / net.duplex_bytes_per_s))
    assert cost(f, "alltoall", L).seconds == pytest.approx(expected)
    # a put inside a host and one between hosts (ranks by slot: x the local rank, y the host)
    assert cost(f, "put", 8, src=0, dst=1).seconds == pytest.approx(shm.hop_latency_s + 8 / shm.bytes_per_s)
    assert cost(f, "put", 8, src=0, dst=2).seconds == pytest.approx(net.hop_latency_s + 8 / net.bytes_per_s)
    # one rank per host: the host dimension takes no step
    one = vcluster(3, 1)
    assert cost(one, "alltoall", 3 * 8).seconds == pytest.approx(net.hop_latency_s + 8 / net.duplex_bytes_per_s)


def test_link_y_is_for_a_ghc(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text(resolve_fabric_path("vcluster-tcp").read_text()
                 .replace('kind = "ghc"', 'kind = "full_mesh"\nnodes = 4').replace("kx = 2", "").replace("ky = 2", ""))
    with pytest.raises(FabricError, match=r"\[link_y\] is for a ghc topology"):
        load_fabric(p)


def test_shapes_are_checked():
    assert [s.label for s in measured.parse_shapes("2x2,3x1")] == ["2x2", "3x1"]
    for bad in ("2", "1x4", "2x0", "2x2,x"):
        with pytest.raises(ValueError, match="--shapes entry"):
            measured.parse_shapes(bad)


def test_calibrations_are_written_in_place(tmp_path):
    p = tmp_path / "v.toml"
    p.write_text(resolve_fabric_path("vcluster-tcp").read_text())
    values = {c.name: 1.5 + i for i, c in enumerate(measured.CALIBRATIONS)}
    measured.write_calibrations(p, values)
    assert measured.fabric_values(p) == pytest.approx(values)
    assert p.read_text().count("CALIBRATED on this machine") == len(values)  # comments kept


def test_validate_measured_quick(tmp_path, capsys):
    why = measured.vhosts_unavailable()
    if why:
        pytest.skip(f"no virtual cluster here: {why}")
    out = tmp_path / "m.json"
    assert meshmem_main(["model", "validate", "--measured", "--quick", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    data = json.loads(out.read_text())
    rows = {r["id"]: r for r in data["rows"]}
    assert set(rows) == {"v2x1-alltoall-8", "v2x1-allreduce-8", "v2x1-sort-a3"}
    for r in rows.values():
        assert r["class"] == "measured" and r["measured"] > 0 and r["predicted"] > 0
        assert math.isfinite(r["error"]) and r["within"] == (abs(r["error"]) <= 0.25)
        assert r["id"] in text
    assert data["tolerance"] == 0.25 and data["calibration"] == measured.fabric_values()
    assert "measured: 3 rows, " in text and "load " in text


def test_validate_measured_bad_input(capsys):
    assert meshmem_main(["model", "validate", "--measured", "--shapes", "1x2"]) == 2
    assert "--shapes entry '1x2'" in capsys.readouterr().err
