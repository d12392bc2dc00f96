"""Execute every notebook in notebooks/ through the npcompile kernel (nbclient) and
write the executed copies to notebooks/executed/. `make run HEADLESS=1` calls this.
Exit status 1 when a notebook raised; its partly executed copy is still written."""
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

HERE = Path(__file__).resolve().parent
OUT = HERE / "executed"
KERNEL = "npcompile"


def run(path: Path) -> bool:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, kernel_name=KERNEL, timeout=600, startup_timeout=120,
                            resources={"metadata": {"path": str(HERE)}})
    ok = True
    start = time.monotonic()
    try:
        client.execute()
    except CellExecutionError as error:
        ok = False
        print(f"FAILED {path.name}:\n{error}", file=sys.stderr)
    target = OUT / path.name
    nbformat.write(nb, target)
    status = "ok" if ok else "error"
    print(f"{status:5} {path.name} ({time.monotonic() - start:.1f} s) -> {target}")
    return ok


def main() -> int:
    OUT.mkdir(exist_ok=True)
    notebooks = sorted(p for p in HERE.glob("*.ipynb"))
    if not notebooks:
        print("no notebooks in", HERE)
        return 0
    results = [run(p) for p in notebooks]
    print(f"{sum(results)}/{len(results)} notebooks ran without error; executed copies in {OUT}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
