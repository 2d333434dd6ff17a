"""The committed Python code in clients/python/outrider/v1 is exactly what `make proto` makes now."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "clients/python/outrider/v1"


def test_generated_python_is_fresh(tmp_path: Path) -> None:
    protos = sorted(str(p.relative_to(ROOT / "proto")) for p in (ROOT / "proto/outrider/v1").glob("*.proto"))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            "-I",
            ".",
            f"--python_out={tmp_path}",
            f"--pyi_out={tmp_path}",
            f"--grpc_python_out={tmp_path}",
            f"--mypy_grpc_out={tmp_path}",
            *protos,
        ],
        cwd=ROOT / "proto",
        check=True,
        env=env,
        capture_output=True,
    )
    fresh = tmp_path / "outrider/v1"
    shutil.copy(GENERATED / "__init__.py", fresh / "__init__.py")
    committed = sorted(p.name for p in GENERATED.iterdir() if p.is_file())
    made = sorted(p.name for p in fresh.iterdir() if p.is_file())
    assert made == committed, "generated file set differs: run `make proto` and commit"
    _, mismatch, errors = filecmp.cmpfiles(GENERATED, fresh, made, shallow=False)
    assert not mismatch and not errors, f"stale generated code {mismatch or errors}: run `make proto` and commit"
