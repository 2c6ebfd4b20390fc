"""Parse a text/event-stream body into (event, id, data) tuples."""

from __future__ import annotations

import json


def parse_events(text: str) -> list[dict]:
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        if "event" in fields or "data" in fields:
            if "data" in fields and fields.get("event") in ("progress", "done", "gone"):
                fields["json"] = json.loads(fields["data"])
            events.append(fields)
    return events
