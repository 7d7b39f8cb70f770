"""Queries, keys and values: hard lookup (exact match or null) beside soft lookup (scores → softmax → blend)."""

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures.queries_keys_values import output_bars, scores_and_weights, self_attention_heatmap
from ui.charts import built, chart
from ui.frame import lesson
from ui.inputs import table
from ui.lessons import queries_keys_values
from ui.steps import Steps
from ui.tables import fixed_table, numbers

TEMPERATURES = [0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 100.0]
DEFAULT_QUERY = [1.0, 1.0, 0.0, 0.0]                     # equals the bicycle-chain key: the hard lookup hits

# "the robot repaired it": tags [thing, action, pronoun]. Each query asks for what its token needs.
TOKENS = ["robot", "repaired", "it"]
SELF_K = np.array([[3.0, 0, 0], [0, 3.0, 0], [0, 0, 3.0]])
SELF_Q = np.array([[0, 2.0, 0], [2.0, 0, 0], [2.0, 0, 0]])


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    LOOKUP = "Hard lookup against soft lookup"
    LOOKS_AWAY = "Where a token looks"


def most_weight(titles: list[str], weights: np.ndarray) -> str:
    """Who gets the most weight, every video of a tie named, and all of them when the weights are even."""
    top = float(weights.max())
    winners = [t for t, w in zip(titles, weights, strict=True) if np.isclose(w, top, rtol=1e-9, atol=0)]
    if len(winners) == len(titles):
        return f"Every video gets the same weight, {top:.1%} each: the scores tie."
    if len(winners) == 1:
        return f"Most weight: **{winners[0]}** ({top:.1%})."
    return ("Most weight, a tie: " + ", ".join(f"**{t}**" for t in winners[:-1]) + f" and **{winners[-1]}**, "
            f"{top:.1%} each.")


frame = lesson("queries_keys_values")


# ── Build a query ──────────────────────────────────────────────────────────────────────────────────
# One fragment: the query sliders and the temperature drive both lookups, the three charts and the spread below.
@frame.fragment
def lookup(library: queries_keys_values.Library) -> None:
    tags, value_names = library.tags, library.value_names
    K, V, titles = library.K, library.V, library.titles
    st.subheader("Your query")
    frame.note("build")
    cols = st.columns(len(tags) + 1)
    q = np.array([frame.control(cols[i].slider, f"q{i + 1}", tag, -1.0, 1.0, DEFAULT_QUERY[i], 0.25)
                  for i, tag in enumerate(tags)])
    temperature = frame.control(cols[-1].select_slider, "temp", "Temperature T", TEMPERATURES, value=0.5,
                                help="Near 0: nearly hard. Large: nearly uniform.")
    st.caption(f"q = [{', '.join(f'{v:g}' for v in q)}].")
    frame.note("temperature")

    hit = core.hard_lookup(q, K)
    soft = core.soft_lookup(q, K, V, temperature=temperature)

    left, right = st.columns(2)
    with left:
        st.markdown("#### Hard lookup: exact match")
        if hit is None:
            st.info("**null**: no key equals your query exactly, so the database returns nothing.",
                    icon=":material/block:")
        else:
            st.success(f"Match: **{titles[hit]}**. Value returned: "
                       + ", ".join(f"{n} {v:g}" for n, v in zip(value_names, V[hit], strict=True)),
                       icon=":material/check_circle:")
    with right:
        st.markdown("#### Soft lookup: scores → softmax → blend")
        st.success(most_weight(titles, soft.weights) + " Blended value: "
                   + ", ".join(f"{n} {v:.3f}" for n, v in zip(value_names, soft.output, strict=True)),
                   icon=":material/blur_on:")

    # One above the other: side by side, the output's column at 1024 px was too narrow for its labels.
    chart(built(scores_and_weights, titles, soft.scores, soft.weights),
          f"① The dot product of your query with each video's key. ② Their softmax at T = {temperature:g}: "
          "the weights add up to 1.",
          lambda: table(np.column_stack([soft.scores, soft.weights]), titles, ["score q·kⱼ", "weight αⱼ"]),
          key=frame.key("fig_lookup"))
    hard_value = None if hit is None else V[hit]
    chart(built(output_bars, value_names, soft.output, hard_value),
          "Green: the soft lookup's blend Σ αⱼ vⱼ. Grey: the hard lookup's value, when there is a match.",
          lambda: table(np.vstack([soft.output] + ([hard_value] if hit is not None else [])),
                        ["soft"] + (["hard"] if hit is not None else []), value_names), key=frame.key("fig_output"))
    st.caption(f"Spread of the weights: {core.entropy(soft.weights):.3f} nats (their entropy, taken with the "
               f"natural logarithm: 0 when one video takes all the weight, {np.log(len(titles)):.3f} for an even "
               f"share over {len(titles)} videos).")




def predict_it(Q: np.ndarray, trace: core.AttentionTrace) -> bool:
    """Where does “it” look? The options are fixed; the right one is read off the weights of the current Q."""
    i = TOKENS.index("it")
    w = trace.weights[i]
    order = [i, TOKENS.index("robot"), TOKENS.index("repaired")]       # the options' order: itself, robot, repaired
    answer = 3 if np.ptp(w) < 1e-9 else order.index(int(np.argmax(w)))
    vec = lambda v: "[" + ", ".join(f"{x:g}" for x in v) + "]"           # noqa: E731 - a one-line formatter
    scores = ", ".join(f"{TOKENS[j]} {trace.scores[i, j]:g}" for j in order[1:]) + f", itself {trace.scores[i, i]:g}"
    why = (f"The scores of “it” are {scores}. After dividing by √3 and softmax, "
           + ", ".join(f"{'itself' if j == i else TOKENS[j]} gets {w[j]:.1%}" for j in order) + ".")
    options = [c.text for c in frame.text.predictions["it_attends"].choices]
    return frame.predict("it_attends", options=options, answer=answer, why=why, query=vec(Q[i]),
                         own_key=vec(SELF_K[i]), robot_key=vec(SELF_K[TOKENS.index("robot")]),
                         repaired_key=vec(SELF_K[TOKENS.index("repaired")]))


def self_angle(cos: float) -> str:
    """How a token's query sits against its own key, in words, from their cosine."""
    if abs(cos) < 0.005:
        return "is at right angles to"
    if abs(cos) >= 0.5:
        return "points along" if cos > 0 else "points against"
    return "leans a little towards" if cos > 0 else "leans a little away from"


# ── The trap: a query orthogonal to its own key ────────────────────────────────────────────────────
# One fragment: the toggle, the prediction and the token picked drive only this section's table, heatmap and metrics.
@frame.fragment
def self_attention() -> None:
    st.subheader("Where a token looks")
    frame.note("selfattention")
    same = frame.control(st.toggle, "same", "Give every token a query equal to its own key", value=False,
                         help="The misconception made real: see what attention does then.")
    Q = SELF_K if same else SELF_Q
    trace = core.scaled_dot_product_attention(Q, SELF_K, np.eye(len(TOKENS)))
    align = core.self_alignment(Q, SELF_K)
    feature_cols = ["thing", "action", "pronoun"]
    numbers(fixed_table(frame.key(f"self_{same}"), lambda: pd.concat([
        table(Q, TOKENS, [f"q · {c}" for c in feature_cols]), table(SELF_K, TOKENS, [f"k · {c}" for c in feature_cols]),
        table(align[:, None], TOKENS, ["cos(qᵢ, kᵢ)"])], axis=1)))
    if predict_it(Q, trace):
        frame.trap(after=("it_attends",))
        token = frame.control(st.radio, "tok", "Follow one token", TOKENS, index=2, horizontal=True)
        i = TOKENS.index(token)
        left, right = st.columns([3, 2])
        with left:
            chart(built(self_attention_heatmap, TOKENS, trace.weights),
                  "Row i: where token i's query sends its attention (softmax of qᵢ·kⱼ/√3). The diagonal is 'itself'.",
                  lambda: table(trace.weights, TOKENS, TOKENS), key=frame.key("fig_self"))
        with right:
            top = TOKENS[int(np.argmax(trace.weights[i]))]
            st.metric(f"weight of “{token}” on itself", f"{trace.weights[i, i]:.3f}")
            st.metric(f"“{token}” attends most to", f"{top} ({trace.weights[i].max():.3f})")
            st.markdown(f"cos(q, k) for “{token}” is **{align[i]:.2f}**: its query {self_angle(align[i])} its own "
                        "key, so it looks " + ("mostly at itself." if top == token else f"mostly at “{top}”."))


def library_table() -> queries_keys_values.Library:
    """The video library the lookups search: its keys and values, shown as a table."""
    frame.note("characters")
    library = queries_keys_values.video_library()
    numbers(library.shown)
    return library


frame.header()
shown = frame.steps(Step.labels())
lookup(library_table())
if shown >= Step.LOOKS_AWAY:
    self_attention()

frame.check("orthogonal_qk", after=("it_attends",))
frame.footer()
