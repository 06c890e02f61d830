"""The `meshmem` tool as a user meets it: every user error one line and a non-zero exit,
checked before anything runs; one vocabulary across commands; help written for users.

These run the tool as a user would (build/bin/meshmem, a separate process), except where a
test needs to look inside (then through meshmem.cli.main).
"""
import os
import subprocess

import pytest


def meshmem(build_dir, *args, env=None, timeout=120):
    """Run build/bin/meshmem ARGS; return the completed process (text output)."""
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run([str(build_dir / "bin" / "meshmem"), *args], capture_output=True,
                          text=True, env=full, timeout=timeout)


@pytest.mark.parametrize("var", ["SHMEM_SYMMETRIC_SIZE", "MESHMEM_HEAP_SIZE"])
def test_info_config_shows_the_heap_in_force(build_dir, var):
    """SHMEM_SYMMETRIC_SIZE sets the heap (and wins over MESHMEM_HEAP_SIZE): the table must
    show the value the runtime uses, not the default."""
    env = {"SHMEM_SYMMETRIC_SIZE": "", "MESHMEM_HEAP_SIZE": ""}
    env[var] = "1G"
    if var == "SHMEM_SYMMETRIC_SIZE":
        env["MESHMEM_HEAP_SIZE"] = "32M"
    res = meshmem(build_dir, "info", "--config", env=env)
    assert res.returncode == 0, res.stderr
    row = next(line for line in res.stdout.splitlines() if line.startswith("MESHMEM_HEAP_SIZE"))
    assert row.split()[1:3] == ["1G", "256M"], row
    if var == "SHMEM_SYMMETRIC_SIZE":
        assert "(from SHMEM_SYMMETRIC_SIZE)" in row, row
