"""Job lists in Chromium: a job whose poster was never made (it failed before
the probe) shows a placeholder, never a broken image, and nothing 404s."""

import base64

from shared_types.keys import poster_key
from shared_types.models import Job, JobError, JobStatus, OutputMode

from .conftest import VIEWPORT

# a 32x18 JPEG, what media-worker's poster frame is in small
POSTER = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERX"
    "RTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2Nj"
    "Y2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAASACADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAA"
    "AAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAk"
    "M2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKT"
    "lJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QA"
    "HwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdh"
    "cRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hp"
    "anN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk"
    "5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDLoooriPpjdooor2z81MKiiivEP0o3aKKK9s/NT//Z")

ALL_POSTERS_SETTLED = """() => {
  const posters = [...document.querySelectorAll('img.poster')];
  return posters.length > 0 && posters.every(img => img.complete);
}"""


def add(backend, job_id: str, status: JobStatus, **fields) -> Job:
    job = Job(job_id=job_id, mode=OutputMode.HALF_SBS, status=status, **fields)
    backend.jobs.create(job)
    return job


def test_a_job_without_a_poster_shows_a_placeholder_and_nothing_404s(server, browser):
    base, backend = server
    failed = add(backend, "0f6c2a5e-0000-4000-8000-000000000001", JobStatus.FAILED,
                 title="Not a video", error=JobError(code="invalid_media", stage="chunking",
                                                     message="The file is not a video."))
    done = add(backend, "0f6c2a5e-0000-4000-8000-000000000002", JobStatus.COMPLETED,
               title="Beach", completed_at=1.0)
    backend.output_storage.put_bytes(poster_key(done.job_id), POSTER, content_type="image/jpeg")
    page = browser.new_page(viewport=VIEWPORT)
    problems: list[str] = []
    served: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("response", lambda r: problems.append(f"{r.status} {r.url}")
            if r.status >= 400 else served.append(r.url.split("?")[0]))
    for path in ("/", "/jobs"):
        page.goto(base + path, wait_until="networkidle")
        page.wait_for_function(ALL_POSTERS_SETTLED)
        shown = page.eval_on_selector_all("img.poster", """imgs => imgs.map(img => ({
            src: img.getAttribute('src'), width: img.naturalWidth, hidden: img.hidden}))""")
        assert problems == [], path  # no 404, no console error
        assert [img for img in shown if img["width"] == 0 or img["hidden"]] == [], path
        assert sorted(img["src"] for img in shown) == sorted(
            f"/jobs/{job.job_id}/poster" for job in (failed, done)), (path, shown)
    assert base + "/static/no-poster.svg" in served  # the failed job's placeholder
    assert any(url.endswith(f"{done.job_id}/poster.jpg") for url in served)  # the real one
