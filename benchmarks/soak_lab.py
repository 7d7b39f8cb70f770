"""Soak test for the real-model lab: many different sentences must not grow memory.

    python -m benchmarks.soak_lab                    # 1,000 sentences through the model, 200 through the page
    python -m benchmarks.soak_lab --page-runs 1000   # as many through the lab page's AppTest reruns
    python -m benchmarks.soak_lab --page-runs 0      # the model only

1,000 different sentences go through ``attention_core.load_model().run(text)``, then through the lab
page's own text field, one AppTest rerun each, in this process. RSS (VmRSS from /proc/self/status) is
read after a warm-up and then every 50 sentences; the run fails (exit 1) if RSS ever ends more than 50 MB
above the post-warm-up figure. Results go to artifacts/soak_lab.json for docs/RELIABILITY.md.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import sys
import time

from benchmarks.bench_model import rss_mb
from devtools.harness import ROOT

LIMIT_MB = 50.0
SUBJECTS = ("The bank", "A river", "My friend", "The model", "Every word", "The teacher", "A small cat",
            "The old bridge", "Her question", "The query")
VERBS = ("sits by", "looks at", "remembers", "attends to", "leans on", "explains", "crosses", "follows")
OBJECTS = ("the water", "the vault", "a long sentence", "the key", "the last token", "a bright idea",
           "the other side", "every value", "the quiet street", "its own shadow", "the morning news",
           "a heavy coin", "the first page")
ADVERBS = ("", " slowly", " today", " at dawn", " once more", " without a word")       # 6,240 combinations


def sentences(n: int, offset: int = 0) -> list[str]:
    """n different sentences, deterministic, of varied length (every 7th one twice as long)."""
    combos = itertools.islice(itertools.product(ADVERBS, OBJECTS, VERBS, SUBJECTS), offset, offset + n)
    out = []
    for i, (a, o, v, s) in enumerate(combos, start=offset):
        text = f"{s} {v} {o}{a}."
        if i % 7 == 0:
            text += f" Then it {VERBS[(i // 7) % len(VERBS)]} {OBJECTS[(i // 3) % len(OBJECTS)]} again."
        out.append(text)
    if len(out) < n:
        raise ValueError(f"only {len(out)} distinct sentences available, asked for {n}")
    return out


def settle() -> float:
    gc.collect()
    return rss_mb()


def soak(label: str, texts: list[str], step, warmup: int) -> dict:
    """Run ``step`` over the texts after ``warmup`` of them; RSS sampled every 50."""
    for text in texts[:warmup]:
        step(text)
    before = settle()
    samples, started = [], time.perf_counter()
    for i, text in enumerate(texts[warmup:], start=1):
        step(text)
        if i % 50 == 0:
            samples.append(round(settle() - before, 2))
    after = settle()
    result = {"what": label, "sentences": len(texts) - warmup, "warmup": warmup, "rss_before_mb": round(before, 1),
              "rss_after_mb": round(after, 1), "growth_mb": round(after - before, 1),
              "max_growth_mb": max([*samples, after - before]), "growth_every_50_mb": samples,
              "seconds": round(time.perf_counter() - started, 1), "ok": after - before <= LIMIT_MB}
    print(f"{label}: {result['sentences']} sentences, RSS {before:.1f} → {after:.1f} MB "
          f"(growth {after - before:+.1f} MB, max {result['max_growth_mb']:+.1f}; limit {LIMIT_MB:.0f}) "
          f"in {result['seconds']} s: {'OK' if result['ok'] else 'TOO MUCH'}")
    return result


def page_step(slug: str):
    """A function typing one sentence into the lab page's text field and rerunning it."""
    from devtools.apptest import TEXT_KINDS, open_page, widgets

    at = open_page(slug, check=False)
    fields = [(i.kind, i.key, i.label) for _, i in widgets(at) if i.kind in TEXT_KINDS]
    if not fields:
        raise SystemExit(f"{slug} has no text field to type into")
    target = fields[0]

    def step(text: str) -> None:
        node = next(n for n, i in widgets(at) if (i.kind, i.key, i.label) == target)
        node.set_value(text)
        at.run()
        if at.exception:
            raise SystemExit(f"{slug} failed on {text!r}: {at.exception[0].message}")

    return step, target


def main() -> int:
    parser = argparse.ArgumentParser(description="Soak the lab's model and page with many sentences.")
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--page-runs", type=int, default=200, help="sentences through the lab page (0: skip)")
    parser.add_argument("--slug", default="real_model_lab")
    parser.add_argument("--warmup", type=int, default=50)
    args = parser.parse_args()

    import attention_core

    started_at = settle()
    model = attention_core.load_model()
    loaded_at = settle()
    print(f"RSS {started_at:.1f} MB before loading the model, {loaded_at:.1f} MB after")
    texts = sentences(args.warmup + args.sentences)
    results = [soak("model", texts, model.run, args.warmup)]

    if args.page_runs:
        step, target = page_step(args.slug)
        page_texts = sentences(args.warmup + args.page_runs, offset=len(texts))
        results.append({**soak(f"page {args.slug} ({target[0]} {target[1] or target[2]!r})", page_texts, step,
                               args.warmup), "page": args.slug})

    out = ROOT / "artifacts" / "soak_lab.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"rss_start_mb": round(started_at, 1), "rss_model_loaded_mb": round(loaded_at, 1),
                               "limit_mb": LIMIT_MB, "runs": results}, indent=2), encoding="utf-8")
    print(f"written to {out.relative_to(ROOT)}")
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
