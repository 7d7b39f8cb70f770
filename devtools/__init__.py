"""Tools for developing the app, shared by tests/, scripts/ and benchmarks/; never imported by the app.

harness: start the real app server, drive Chromium. services: Debian's redis-server and haproxy as child
processes. apptest: open a page with Streamlit's AppTest and read what it shows.
"""
