"""HTTP routes: HTML pages, the JSON API and the SSE stream."""
