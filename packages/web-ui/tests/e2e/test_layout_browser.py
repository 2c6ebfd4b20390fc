"""The dashboard at a laptop's 1280 px and a phone's 390 px: nothing is cut off
(no column of the jobs table hidden behind a scroll or the page's edge) and
every form control sits beside its label. Screenshots of both widths go to
docs/screenshots with STEREO_SPOT_UPDATE_SCREENSHOTS=1."""

from __future__ import annotations

import pytest
from shared_types.models import Job, JobStatus, OutputMode, now

from .conftest import SCREENSHOTS

WIDTHS = {"desktop-1280": (1280, 900), "phone-390": (390, 844)}

# Every element of main whose box ends past the visible right edge of a
# clipping ancestor (a scrolling table, the page itself) or past the viewport.
CUT_OFF = """() => {
  const out = [];
  const vw = document.documentElement.clientWidth;
  for (const el of document.querySelectorAll('main *')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
    if (el.closest('.drop-zone .pick')) continue;  // the visually hidden file input
    let right = vw;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX !== 'visible') right = Math.min(right, a.getBoundingClientRect().right);
    }
    if (r.right > right + 1) out.push(`${el.tagName}.${el.className} ${el.textContent.trim()
      .slice(0, 30)} ends at ${Math.round(r.right)} > ${Math.round(right)}`);
  }
  if (document.documentElement.scrollWidth > vw + 1) out.push(`page scrolls sideways`);
  // a select shows its chosen option in its own box: every option must fit there
  const ctx = document.createElement('canvas').getContext('2d');
  for (const select of document.querySelectorAll('main select')) {
    const s = getComputedStyle(select);
    ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
    const room = select.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 20;
    for (const option of select.options) {
      const w = ctx.measureText(option.text).width;
      if (w > room) out.push(`${select.name}: "${option.text}" ${Math.round(w)} > ` +
                             `${Math.round(room)}`);
    }
  }
  return out;
}"""

# Where each control of the create form lies against the text of its label.
CONTROLS = """() => [...document.querySelectorAll('main label')].flatMap(label => {
  const control = label.querySelector('input:not([type=hidden]):not([type=file]), select');
  if (!control || !control.getBoundingClientRect().width) return [];
  const range = document.createRange();
  const texts = [...label.childNodes].filter(n => n.nodeType === 3 && n.textContent.trim());
  if (!texts.length) return [];  // labelled by its own words elsewhere (aria)
  range.setStartBefore(texts[0]); range.setEndAfter(texts[texts.length - 1]);
  // a checkbox goes with the first line of its words, any other control below the last
  const t = control.type === 'checkbox' ? range.getClientRects()[0]
                                        : range.getBoundingClientRect();
  const c = control.getBoundingClientRect();
  return [{name: control.name, type: control.type, text: {left: t.left, right: t.right,
           top: t.top, bottom: t.bottom}, control: {left: c.left, right: c.right, top: c.top,
           bottom: c.bottom}}];
})"""


def _jobs(backend, count=8):
    for i in range(count):
        done = i % 3 != 2
        backend.jobs.create(Job(
            job_id=f"00000000-0000-4000-8000-{i:012d}", mode=list(OutputMode)[i % len(OutputMode)],
            title=f"Holiday clip number {i} from the summer of 2024",
            status=JobStatus.COMPLETED if done else JobStatus.CHUNKING_IN_PROGRESS,
            created_at=now() - 3600 * i, completed_at=now() - 60 * i if done else None))


def _thumbnails(backend, job_id: str, count: int) -> None:
    """The strip's pictures: a JPEG per moment, a colour each."""
    import cv2
    import numpy as np
    from shared_types.keys import thumbnail_key

    for i in range(count):
        picture = np.full((54, 96, 3), (40 + 15 * i, 120, 220 - 15 * i), np.uint8)
        backend.output_storage.put_bytes(thumbnail_key(job_id, i),
                                         cv2.imencode(".jpg", picture)[1].tobytes())


def _beside(place: dict) -> bool:
    """A checkbox: its text on the same line, just right of it. Any other
    control: its text just above it, the two left-aligned."""
    t, c = place["text"], place["control"]
    if place["type"] == "checkbox":
        middle = (c["top"] + c["bottom"]) / 2
        return t["top"] - 4 <= middle <= t["bottom"] + 4 and 0 <= t["left"] - c["right"] <= 16
    return 0 <= c["top"] - t["bottom"] <= 12 and abs(t["left"] - c["left"]) <= 4


@pytest.mark.parametrize("name", list(WIDTHS))
def test_the_dashboard_fits_and_every_control_is_beside_its_label(server, browser, name):
    base, backend = server
    _jobs(backend)
    width, height = WIDTHS[name]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(base + "/")
    cut_off = page.evaluate(CUT_OFF)
    assert cut_off == [], "\n".join(cut_off)
    places = page.evaluate(CONTROLS)
    names = {p["name"] for p in places}
    assert {"mode", "codec", "subtitles_3d", "preview", "cross_eyed", "divergence"} <= names
    apart = [p["name"] for p in places if not _beside(p)]
    assert apart == []
    # every column of the jobs table is on screen, the last one too
    last = page.locator("table.jobs tbody tr").first.locator("td").last
    box = last.bounding_box()
    assert box and box["x"] + box["width"] <= width
    page.screenshot(path=SCREENSHOTS / f"dashboard-{name}.png", full_page=True)


def test_the_geometry_check_sees_a_cut_off_column_and_a_lone_checkbox(server, browser):
    """Negative control: today's faults, put back, are caught."""
    base, backend = server
    _jobs(backend)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base + "/")
    page.evaluate("""() => {  // (the page's CSP allows no style tag; the CSSOM it allows)
      document.querySelector('table.jobs').style.minWidth = '900px';
      for (const box of document.querySelectorAll('#create-form input[type=checkbox]')) {
        box.style.display = 'block'; box.style.width = '100%';
        box.closest('label').style.display = 'block';
      }
    }""")
    assert any("TD" in line or "TH" in line for line in page.evaluate(CUT_OFF))
    apart = [p["name"] for p in page.evaluate(CONTROLS) if not _beside(p)]
    assert "subtitles_3d" in apart


@pytest.mark.parametrize("name", list(WIDTHS))
def test_the_jobs_list_and_a_held_jobs_preview_fit_too(server, browser, name):
    from .test_preview_browser import held_job

    base, backend = server
    _jobs(backend)
    held = held_job(backend)
    _thumbnails(backend, held.job_id, 12)
    width, height = WIDTHS[name]
    page = browser.new_page(viewport={"width": width, "height": height})
    for path, shot in (("/jobs", "jobs"), (f"/jobs/{held.job_id}", "preview")):
        page.goto(base + path)
        cut_off = page.evaluate(CUT_OFF)
        assert cut_off == [], f"{path}: " + "\n".join(cut_off)
        apart = [p["name"] for p in page.evaluate(CONTROLS) if not _beside(p)]
        assert apart == [], path
        page.screenshot(path=SCREENSHOTS / f"{shot}-{name}.png", full_page=True)
