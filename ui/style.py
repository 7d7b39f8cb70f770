"""The site's static CSS: constant strings only, never anything a learner typed or a link carried."""

from __future__ import annotations

# Every page, every mode.
SITE_CSS = """
<style>
  /* Captions: Streamlit's faded grey is 3.88:1 on white; the body colour at 80% is above 5:1 in both themes. */
  [data-testid="stCaptionContainer"] { color: inherit !important; opacity: 0.8; }
  [data-testid="stCaptionContainer"] p, [data-testid="stCaptionContainer"] li { color: inherit !important; }
  /* The lesson's question is its h2; sized as the h4 it used to be, below the page title. */
  .st-key-lesson_question h2 { font-size: 1.35rem; font-weight: 600; padding: 0.25rem 0 0.5rem 0; }
  /* A clearly visible keyboard focus on radios and the sidebar's links, in the text colour of either theme. */
  [data-testid="stRadio"] label:has(input:focus-visible),
  [data-testid="stSidebarNav"] a:focus-visible,
  [data-testid="stPageLink"] a:focus-visible {
    outline: 3px solid currentColor; outline-offset: 2px; border-radius: 4px; }
  /* Lesson titles in the sidebar wrap instead of being cut off with an ellipsis. */
  [data-testid="stSidebarNav"] .stMarkdownEllipsis, [data-testid="stSidebarNav"] .stMarkdownEllipsis p,
  [data-testid="stNavSectionHeader"] .stMarkdownEllipsis, [data-testid="stNavSectionHeader"] .stMarkdownEllipsis p {
    white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
  [data-testid="stSidebarNav"] .stMarkdownEllipsis p, [data-testid="stNavSectionHeader"] p { line-height: 1.3; }
  [data-testid="stSidebarNavLink"] { height: auto !important; min-height: 2rem; }
  /* What a presenter's step scrolls to clears the app's fixed top bar. */
  [data-testid="stMain"] [data-testid="stElementContainer"], [data-testid="stMain"] [data-testid="stExpander"],
  [class*="__step__bar"] { scroll-margin-top: 4.5rem; }
  /* The step bar's buttons keep their words on one line. */
  [class*="__step__bar"] button { white-space: nowrap; padding-left: 0.7rem; padding-right: 0.7rem; }
  [class*="__step__bar"] button p { white-space: nowrap; }
  /* Chips (a multiselect's picked words) wear the dark theme's light sky blue: dark text on it, not white. */
  @media (prefers-color-scheme: dark) {
    [data-testid="stMultiSelect"] [data-baseweb="tag"], [data-testid="stMultiSelect"] [data-baseweb="tag"] span,
    [data-testid="stMultiSelect"] span[title] { color: #0E1117 !important; }
    [data-testid="stMultiSelect"] [data-baseweb="tag"] svg { fill: #0E1117 !important; color: #0E1117 !important; }
    /* The formula's "softmax" is a deep blue for white (figures/palette.py TEXT_SHADES); sky blue on dark. */
    .katex [style*="rgb(31, 120, 180)"], .katex [style*="#1f78b4" i] { color: #56B4E9 !important; }
  }
</style>
"""
