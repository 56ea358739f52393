"""Benchmark ``trainwell doctor``: speed over generated scripts + corpus precision/recall.

    .venv/bin/python benchmarks/doctor.py [--files 1000] [--repeats 3]

Generates ``--files`` training scripts in a temporary directory (variants of the files in
tests/unit/doctor/corpus), times ``check_paths`` over the directory (median of ``--repeats``
runs) and prints files/s. It then scores the corpus: each ``# expect: CODE`` marker is a
true positive if reported, a false negative if not; any unmarked finding is a false positive.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from trainwell.doctor import check_paths, check_source  # noqa: E402

CORPUS = ROOT / "tests" / "unit" / "doctor" / "corpus"
EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>TW\d{3}(?:\s*,\s*TW\d{3})*)")
TARGET_MARK = "target-torch: 2.1"


def corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.py"))


def make_variant(text: str, index: int) -> str:
    """A distinct but equivalent script: module-level functions renamed (with their calls)
    and an extra utility function appended."""
    names = re.findall(r"^def (\w+)\(", text, flags=re.M)
    renamed = text
    if names:
        pattern = re.compile(r"(?<![.\w])(" + "|".join(map(re.escape, names)) + r")(?=\()")
        renamed = pattern.sub(lambda m: f"{m.group(1)}_{index}", text)
    extra = (
        f"\n\ndef log_metrics_{index}(metrics, step):\n"
        f"    for key, value in sorted(metrics.items()):\n"
        f"        print(f'{{step}} {{key}}={{value:.4f}}')\n"
    )
    return f"# generated variant {index}\n{renamed}{extra}"


def generate(directory: Path, count: int) -> None:
    sources = [p.read_text() for p in corpus_files()]
    for index in range(count):
        sub = directory / f"project_{index // 100:02d}"
        sub.mkdir(exist_ok=True)
        (sub / f"train_{index:04d}.py").write_text(
            make_variant(sources[index % len(sources)], index)
        )


def time_checks(directory: Path, repeats: int) -> tuple[float, int]:
    timings, findings = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        findings = len(check_paths([directory]))
        timings.append(time.perf_counter() - start)
    return statistics.median(timings), findings


def score_corpus() -> tuple[int, int, int]:
    tp = fp = fn = 0
    for path in corpus_files():
        text = path.read_text()
        expected = set()
        for number, line in enumerate(text.splitlines(), start=1):
            match = EXPECT.search(line)
            if match:
                expected |= {(number, c.strip()) for c in match.group("codes").split(",")}
        target = "2.1" if TARGET_MARK in text else None
        actual = {(f.line, f.code) for f in check_source(text, str(path), target_torch=target)}
        tp += len(actual & expected)
        fp += len(actual - expected)
        fn += len(expected - actual)
    return tp, fp, fn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="scripts to generate")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs (median is shown)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="doctor-bench-") as tmp:
        directory = Path(tmp)
        generate(directory, args.files)
        lines = sum(p.read_text().count("\n") for p in directory.rglob("*.py"))
        seconds, findings = time_checks(directory, args.repeats)
    print(f"speed: {args.files} files ({lines} lines), median of {args.repeats} runs: "
          f"{seconds:.2f} s total, {args.files / seconds:.0f} files/s, "
          f"{findings} findings")  # fmt: skip

    tp, fp, fn = score_corpus()
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    print(f"corpus: {len(corpus_files())} files, {tp + fn} expected findings: "
          f"TP={tp} FP={fp} FN={fn} precision={precision:.1%} recall={recall:.1%}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
