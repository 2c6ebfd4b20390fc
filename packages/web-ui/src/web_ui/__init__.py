"""FastAPI + Jinja2 dashboard with SSE progress."""
