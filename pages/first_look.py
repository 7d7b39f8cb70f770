"""Attention in fifteen minutes: one real sentence through one layer, six moves to try, then the formula."""

import pandas as pd
import streamlit as st

import attention_core as core
from figures.convex_blending import hull_figure
from figures.first_look import head_row_figure, pass_figure
from figures.polysemy import context_map
from figures.queries_keys_values import scores_and_weights
from figures.rnn_vs_attention import influence_figure
from figures.sqrt_dk import weights_figure
from ui import navigation
from ui.charts import built, chart
from ui.content import fill, load_lesson
from ui.frame import lesson
from ui.inputs import literal
from ui.lessons import first_look as fl, polysemy
from ui.numbers import counted, fixed, from_log10, written
from ui.steps import Steps

CAPTIONS = fl.TEXT["captions"]


class Step(Steps):
    """The presenter steps, in order: the pass, then one step per move."""

    PASS = "The pass through one layer"
    WORDS = "One word, many meanings"
    BLEND = "Where a blend can land"
    QUERY = "A question meets labels"
    SCALE = "Why divide by √dₖ"
    HEADS = "Two heads, one sentence"
    REACH = "Every word at once"
    FORMULA = "The formula, earned"


frame = lesson("first_look")


def move(name: str, anchor: str) -> None:
    """A move's heading; its anchor is what the formula's parts link back to."""
    st.subheader(fl.TITLES[name], anchor=anchor)


def takeaway(n: int) -> None:
    title, text = frame.text.takeaways[n]
    st.info(f"**{title}.** {text}", icon=":material/lightbulb:")


def go_deeper(slug: str) -> None:
    st.page_link(navigation.page(slug), label=f"Go deeper: {load_lesson(slug).title}", icon=":material/school:")


def the_pass() -> None:
    move("pass", "the-pass")
    F = fl.pass_frames()
    same, stages = F.same, fl.STAGES
    values = {"tokens": counted(len(F.rows) - 1, "token"), "head": F.head + 1, "weight": f"{F.weight_far:.0%}",
              "far": fl.FAR, "heads": core.bert.N_HEADS, "cosine": fixed(same.output)}
    figure = (list(F.rows), F.word_row, list(F.heat), list(F.bars), [s["label"] for s in stages],
              [fill(s["caption"], **values) for s in stages], [s["heat"] for s in stages], [s["bars"] for s in stages])
    if not frame.revealed("same"):   # where both sentences start, still: the question's set-up, not its answer
        chart(built(pass_figure, *figure[:2], *(part[:1] for part in figure[2:]), animated=False),
              fill(CAPTIONS["start"], river=fl.RIVER, till=fl.TILL), None, key=frame.key("fig_start"))
    if frame.predict("same", answer=1 if same.output < 1 else 0, lookup=fixed(same.lookup),
                     embedded=fixed(same.embedded), cosine=fixed(same.output)):
        st.markdown(frame.text.notes["pass"])
        chart(built(pass_figure, *figure), fill(CAPTIONS["pass"], head=F.head + 1),
              lambda: pd.DataFrame({s["label"]: b for s, b in zip(stages, F.bars, strict=True)},
                                   index=[f"{i}: {r}" for i, r in enumerate(F.rows)]).round(4),
              key=frame.key("fig_pass"))


@frame.fragment
def words() -> None:
    move("words", "one-word-many-meanings")
    st.markdown(frame.text.notes["words"])
    context = frame.control(st.radio, "context", "Words around “bank”", list(fl.CONTEXTS), horizontal=True)
    m = fl.words_move(context)
    far = {"river": fixed(m.to_river), "money": fixed(m.to_money)}
    if frame.predict("where", answer=m.answer, context=context, d_river=far["river"], d_money=far["money"]):
        v = polysemy.vocab()
        chart(built(context_map, v.all, v.X, v.groups, m.static, m.trace.z, m.words, m.trace.weights, m.groups,
                    tuple(m.words)),
              fill(CAPTIONS["words"], d_river=far["river"], d_money=far["money"]),
              lambda: pd.DataFrame({"weight": m.trace.weights}, index=m.words).round(4), key=frame.key("fig_words"))
        takeaway(0)
    go_deeper("polysemy")


@frame.fragment
def blend() -> None:
    move("blend", "a-blend-stays-among-what-it-blends")
    st.markdown(frame.text.notes["blend"])
    on_river = frame.control(st.slider, "river", "Weight on “river”", 0.0, 1.0, 0.6, 0.05)
    b = fl.blend_move(on_river)
    if frame.predict("inside"):
        chart(built(hull_figure, fl.BLEND_X, fl.BLEND_LABELS, core.convex_hull_2d(fl.BLEND_X), b.z, b.inside_hull),
              fill(CAPTIONS["blend"], weights=", ".join(fixed(w, 2) for w in b.weights),
                   where="inside the triangle or on its edge" if b.inside_hull else "outside the triangle"),
              lambda: pd.DataFrame({"weight": b.weights, "x": fl.BLEND_X[:, 0], "y": fl.BLEND_X[:, 1]},
                                   index=fl.BLEND_LABELS), key=frame.key("fig_blend"))
        takeaway(1)
    go_deeper("convex_blending")


@frame.fragment
def query() -> None:
    move("query", "a-question-meets-labels")
    st.markdown(frame.text.notes["query"])
    want = frame.control(st.radio, "want", "“it” is looking for", list(fl.WANTS))
    s = fl.query_move(want)
    top, weight = core.top_keys(s.weights, 1)[0]
    if frame.predict("looks", options=fl.QUERY_WORDS, answer=top, want=want, weight=f"{weight:.0%}"):
        chart(built(scores_and_weights, fl.QUERY_WORDS, s.scores, s.weights),
              fill(CAPTIONS["query"], top=fl.QUERY_WORDS[top], weight=f"{weight:.0%}"),
              lambda: pd.DataFrame({"score": s.scores, "weight": s.weights}, index=fl.QUERY_WORDS).round(4),
              key=frame.key("fig_query"))
        takeaway(2)
    go_deeper("queries_keys_values")


@frame.fragment
def scale() -> None:
    move("scale", "why-divide-by-dk")
    st.markdown(fill(frame.text.notes["scale"], keys=fl.SCALE_KEYS))
    d_k = frame.control(st.slider, "dk", "dₖ: numbers in each query and key", 1, 1024, 64)
    m = fl.scale_move(d_k)
    if frame.predict("snap"):
        chart(built(weights_figure, m.raw, m.scaled),
              fill(CAPTIONS["scale"], d_k=d_k, raw=fixed(m.raw.max()), scaled=fixed(m.scaled.max())),
              lambda: pd.DataFrame({"unscaled": m.raw, "scaled": m.scaled}).round(4), key=frame.key("fig_scale"))
        takeaway(3)
    go_deeper("sqrt_dk")


@frame.fragment
def heads() -> None:
    move("heads", "many-heads-many-questions")
    st.markdown(frame.text.notes["heads"])
    h = fl.heads_move()
    names = [f"Head {n + 1}" for n in h.heads]
    tops = [literal(h.tokens[t]) for t in h.tops]
    pick = frame.control(st.radio, "head", "Head of the first layer", names, horizontal=True)
    i = names.index(pick)
    if frame.predict("heads", answer=0 if h.tops[0] == h.tops[1] else 1, first=names[0], second=names[1].lower(),
                     top_first=tops[0], top_second=tops[1]):
        row = h.rows[i]
        chart(built(head_row_figure, row, list(h.tokens), h.query, f"Where “it” looks, {pick.lower()}"),
              fill(CAPTIONS["heads"], head=pick, top=tops[i], weight=f"{row[h.tops[i]]:.0%}"),
              lambda: pd.DataFrame({"weight": row.round(4)}, index=[f"{j}: {t}" for j, t in enumerate(h.tokens)]),
              key=frame.key("fig_heads"))
        takeaway(4)
    go_deeper("multi_head")


@frame.fragment
def reach() -> None:
    move("reach", "every-word-at-once")
    st.markdown(frame.text.notes["reach"])
    length = frame.control(st.slider, "length", "Words in the sentence", 5, 300, 20)
    race = fl.reach_move(length)
    said = {"length": counted(length, "word"), "rnn": from_log10(race.rnn_log10[0]),
            "attention": written(race.attention[0])}
    if frame.predict("reach", **said):
        chart(built(influence_figure, race.distance, race.rnn, race.attention, race.ceiling),
              fill(CAPTIONS["reach"], **said), None, key=frame.key("fig_reach"))
        takeaway(5)
    go_deeper("rnn_vs_attention")


def moves(shown: int) -> None:
    """The six moves, each once the presenter has stepped to it (all of them outside presenter mode)."""
    for step, section in ((Step.WORDS, words), (Step.BLEND, blend), (Step.QUERY, query), (Step.SCALE, scale),
                          (Step.HEADS, heads), (Step.REACH, reach)):
        if shown >= step:
            section()


def formula() -> None:
    """The formula, earned: each part links back to the move that showed it; then where to go next."""
    move("formula", "the-formula-earned")
    st.markdown(frame.text.notes["formula"])
    st.markdown(frame.text.notes["where_next"])
    for slug in ("positional_encoding", "transformer_block", "kv_cache", "real_model_lab"):
        st.page_link(navigation.page(slug), label=load_lesson(slug).title, icon=":material/arrow_forward:")


frame.header()
shown = frame.steps(Step.labels())
st.markdown(frame.text.notes["promise"])
the_pass()
moves(shown)
if shown >= Step.FORMULA:
    formula()
frame.trap()
frame.check("which_part")
frame.footer()
