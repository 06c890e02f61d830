"""python/examples run with the installed package and verify themselves (status 0)."""
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "python" / "examples"

CASES = [("hello.py", 1, []), ("hello.py", 3, []),
         ("ring.py", 2, ["--laps", "5"]), ("ring.py", 3, ["--laps", "5"]),
         ("average.py", 2, ["--elements", "5000", "--steps", "2"]),
         ("average.py", 3, ["--elements", "4099", "--steps", "2", "--algo", "naive",
                            "--dtype", "bfloat16"]),
         ("average.py", 4, ["--elements", "1000", "--steps", "2", "--dtype", "float16"]),
         ("sort.py", 1, ["--records", "10000"]), ("sort.py", 4, ["--records", "100003"])]


@pytest.mark.parametrize("example,n,args", CASES, ids=[f"{e}-n{n}" for e, n, _ in CASES])
def test_example(installed, launch, example, n, args):
    r = launch.run([str(installed / "meshrun"), "-n", str(n), "--heap", "32M",
                    str(installed / "python"), str(EXAMPLES / example), *args],
                   guard=120, direct=True)
    assert r.rc == 0, r.err[-3000:]
    assert r.out.strip(), "the example printed nothing"
