"""What the classroom keeps in the learner's own browser, through streamlit_js_eval (as ui/progress.py does).

- The follower id, in localStorage: one per browser, made there on its first visit. A student who reloads,
  opens a second tab, or whose server died is still one follower with one vote (``ClassState.me``).
- The presenter's class and key, in sessionStorage: this tab only, gone when the tab closes. Reloading the
  tab resumes presenting.
- The same, in localStorage, while the class is live (issue 46): a presenter whose tab or browser closed opens
  the app again in that browser and is offered "Resume presenting class CODE". "End the class" (or a class found
  ended) removes it, so a shared classroom computer keeps nothing for the next person once the class is over.
- A reconnect to another server runs the page again (issue 45): when the server a student's page talks to dies,
  Streamlit's page reconnects by itself (HAProxy sends it to a live replica), but it asks the new server for a run
  only when a run or a timer was going; an idle follower's page has neither (ui.classroom.watcher wakes followers
  from the server), so it would sit there, stale, until touched. ``rejoin_on_reconnect`` leaves in the page a
  promise that resolves once the page has opened a new websocket; its answer reruns the page on the new server,
  which reads the class from the address (?room=CODE) and the follower id from localStorage, as on a reload.
- A presenter link's key is wiped from the address bar in place (``history.replaceState``): the run that
  reads it changes ``st.query_params`` without telling the browser (which would push a new history entry
  and leave the key one entry back), the page rewrites its own address, and only then does the server say
  the new address, which the browser already shows.

The key travels to the browser inside the component's arguments (the websocket), never in the page's HTML.
Outside a server (AppTest) there is no browser: nothing is read or kept, and a link's key leaves at once.
"""

from __future__ import annotations

import hashlib
import json
import re

import streamlit as st

from ui import streamlit_private as private

FOLLOWER_ITEM = "attention-classroom-follower"
PRESENTER_ITEM = "attention-classroom-presenter"
ID_PATTERN = re.compile(r"[0-9a-f]{32}")
_SAID = "_class_browser_said"            # session key: what the browser answered (a dict), once it has
_HAD = "_class_browser_had"              # session key: the presenter entry this tab held when it answered
_ASKED = "_class_browser_asked"          # session key: the entry this session last asked the tab to keep

# A constant expression (no value from the server in it): the follower id, made on first use from the
# browser's own random source (crypto.getRandomValues works on plain http too), and this tab's presenter entry.
_READ_JS = """(() => { const w = window.parent;
  try {
    let id = w.localStorage.getItem('FOLLOWER_ITEM');
    if (!/^[0-9a-f]{32}$/.test(id || '')) {
      const b = new Uint8Array(16); w.crypto.getRandomValues(b);
      id = Array.from(b, x => x.toString(16).padStart(2, '0')).join('');
      w.localStorage.setItem('FOLLOWER_ITEM', id);
    }
    return JSON.stringify({follower: id, presenter: w.sessionStorage.getItem('PRESENTER_ITEM'),
                           live: w.localStorage.getItem('PRESENTER_ITEM')});
  } catch (e) { return JSON.stringify({follower: null, presenter: null, live: null}); }
})()""".replace("FOLLOWER_ITEM", FOLLOWER_ITEM).replace("PRESENTER_ITEM", PRESENTER_ITEM)


# A constant expression. Once per page (window.parent keeps the hook, made in the page's own realm so that it
# outlives this element's frame), the page's WebSocket is wrapped: each socket opened from then on (a reconnect:
# the page's first one is older than any run) fires the hook 300 ms after it opens (the page is connected again
# by then); each waiting element still on the page gets a fresh value, whose answer reruns the page on the
# server now at the other end.
_REJOIN_JS = """new Promise(resolve => { const w = window.parent;
  try {
    w.__attentionRejoin = w.__attentionRejoin || new w.Function(`const waiting = [], Socket = window.WebSocket;
      window.WebSocket = class extends Socket {
        constructor(...args) {
          super(...args);
          if (String(args[0]).includes('/_stcore/stream')) this.addEventListener('open', () => setTimeout(() => {
            const now = String(Date.now());
            waiting.splice(0).forEach(([done, frame]) => {
              try { if (frame.frameElement && frame.frameElement.isConnected) done('back ' + now); } catch (e) { }
            });
          }, 300));
        }
      };
      return waiting;`)();
    w.__attentionRejoin.push([resolve, window]);
  } catch (e) { }
})"""


def _eval(expression: str, key: str):
    from streamlit_js_eval import streamlit_js_eval

    return streamlit_js_eval(js_expressions=expression, key=key)


def there() -> bool:
    """A browser is on the other end (a real server's session; AppTest has none)."""
    return private.served()


def read() -> None:
    """Ask the browser once per session for its follower id and this tab's presenter entry (drawn in the
    sidebar on every run until it answers; its answer reruns the page). A page of a class (?room= in its
    address: a student's) also gets ``rejoin_on_reconnect``'s element, on every run."""
    if not there():
        return
    if "room" in st.query_params:
        rejoin_on_reconnect()
    if _SAID in st.session_state:
        return
    raw = _eval(_READ_JS, "_class_browser_read")
    if raw is None:
        return
    try:
        said = json.loads(raw) if isinstance(raw, str) else {}
    except ValueError:
        said = {}
    st.session_state[_SAID] = said if isinstance(said, dict) else {}
    st.session_state[_HAD] = _entry(st.session_state[_SAID].get("presenter"))


def rejoin_on_reconnect() -> None:
    """For a page in a class: a hidden element that reruns the page once it has reconnected to a server (another
    replica, after its own died). Its key names this session, so the new server's first run draws a new one,
    which waits for the next reconnect; the old one's value is for a session that no longer exists."""
    sid = private.session_id()
    if there() and sid:
        _eval(_REJOIN_JS, "_class_rejoin_" + hashlib.blake2b(sid.encode(), digest_size=6).hexdigest())


def said() -> bool:
    """The browser has answered, or there is none to wait for."""
    return not there() or _SAID in st.session_state


def follower() -> str | None:
    """The id this browser keeps for itself as a follower (None while unknown, or in a browser that refused)."""
    value = st.session_state.get(_SAID, {}).get("follower")
    return value if isinstance(value, str) and ID_PATTERN.fullmatch(value) else None


def presenter_entry() -> tuple[str, str] | None:
    """This tab's (class code, presenter key) as kept before a reload, handed out once per session."""
    return _entry(st.session_state.get(_SAID, {}).pop("presenter", None))


def _entry(raw: object) -> tuple[str, str] | None:
    try:
        entry = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    if isinstance(entry, dict) and isinstance(entry.get("code"), str) and isinstance(entry.get("key"), str):
        return entry["code"][:16], entry["key"][:64]
    return None


def live_presenter_entry() -> tuple[str, str] | None:
    """The (class code, presenter key) this browser keeps while a class it presented is live (any tab of it, even
    one closed since), as it was when this session started; None when it keeps none."""
    return _entry(st.session_state.get(_SAID, {}).get("live"))


def forget_live_presenter() -> None:
    """This browser keeps no presenter entry any more (its class has ended): drawn on every run until the browser
    says it has removed it."""
    ss = st.session_state
    if not there() or not isinstance(ss.get(_SAID), dict) or ss[_SAID].get("live") is None:
        return
    item = json.dumps(PRESENTER_ITEM)
    if _eval(f"window.parent.localStorage.removeItem({item}) || 'forgotten'", "_class_forget_live") == "forgotten":
        ss[_SAID]["live"] = None


def keep_presenter(entry: tuple[str, str] | None) -> None:
    """This tab keeps (code, key) for a reload, or forgets it (None). Drawn on every run from the first change
    on (the element's key names its content, so the browser runs each change once, and its answer reruns the
    page once); nothing is drawn while the tab already holds what it should."""
    ss = st.session_state
    if not there() or _SAID not in ss or (_ASKED not in ss and entry == ss.get(_HAD)):
        return                                          # the tab already holds it: no script, no rerun
    ss[_ASKED] = entry
    item = json.dumps(PRESENTER_ITEM)
    if entry is None:
        expression = (f"window.parent.sessionStorage.removeItem({item}) || "
                      f"window.parent.localStorage.removeItem({item}) || 'forgotten'")
    else:
        # json.dumps twice: the JSON text becomes a JavaScript string literal.
        value = json.dumps(json.dumps({"code": entry[0], "key": entry[1]}))
        expression = (f"window.parent.sessionStorage.setItem({item}, {value}) || "
                      f"window.parent.localStorage.setItem({item}, {value}) || 'kept'")
    _eval(expression, "_class_keep_" + hashlib.blake2b(expression.encode(), digest_size=8).hexdigest())


def wipe_address(query: str) -> bool:
    """Rewrite the address bar, in place, to this page with ``query`` (e.g. "room=K7MQ2P", or ""): True once
    the browser has done it (at once without a browser)."""
    if not there():
        return True
    target = json.dumps("?" + query if query else "")
    expression = ("(() => { const w = window.parent; w.history.replaceState(w.history.state, '', "
                  f"w.location.pathname + {target} + w.location.hash); return 'wiped'; }})()")
    return _eval(expression, "_class_wipe_" + hashlib.blake2b(expression.encode(), digest_size=8).hexdigest()) \
        == "wiped"
