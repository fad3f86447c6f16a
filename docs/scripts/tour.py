"""Media Index from Python, through a client generated from the service's own OpenAPI document:

    pip install openapi-python-client==0.29.1 ruff
    openapi-python-client generate --url "$MEDIA_INDEX_URL/api/v1/openapi.json" --meta none --output-path media_index_client
    MEDIA_INDEX_URL=http://127.0.0.1:7717 MEDIA_INDEX_KEY=mi_... python tour.py "query" book.pdf photo.jpg...

Uploads a PDF and photos, waits for them to be indexed, reads page 1 and its regions, searches,
asks the PDF a question, names a person and pages through every asset. Answers 429 (rate limited)
and 409 `busy` (People being regrouped) are waited out and tried again.
"""

import os
import sys
import time
from pathlib import Path

from media_index_client import AuthenticatedClient
from media_index_client.api.people import list_people, recluster_people, update_person
from media_index_client.api.recall import recall
from media_index_client.api.search import search
from media_index_client.api.videos import get_asset, get_page, get_regions, list_assets, upload_asset
from media_index_client.models import RecallBody, SearchBody, UpdatePersonBody, UploadAssetBody
from media_index_client.types import File

client = AuthenticatedClient(
    base_url=os.environ.get("MEDIA_INDEX_URL", "http://127.0.0.1:7717"),
    token=os.environ["MEDIA_INDEX_KEY"],
    timeout=60,
)
query, pdf, *photos = sys.argv[1:]
waited = {"rate_limited": 0, "busy": 0}


def call(endpoint, **kwargs):
    """Calls until the answer is neither 429 nor 409 busy, then returns its data or raises its error."""
    while True:
        response = endpoint.sync_detailed(client=client, **kwargs)
        parsed = response.parsed
        if response.status_code == 429:
            waited["rate_limited"] += 1
            time.sleep(int(response.headers.get("Retry-After", "1")))
        elif response.status_code == 409 and parsed.error.code == "busy":
            waited["busy"] += 1
            time.sleep(0.5)
        elif response.status_code < 300:
            return parsed
        else:
            raise RuntimeError(f"{response.status_code} {parsed.error.code}: {parsed.error.message}")


# 1. Upload: the file as a binary part, the pipeline as a text part.
ids = {}
for path in [pdf, *photos]:
    with open(path, "rb") as f:
        body = UploadAssetBody(file=File(payload=f, file_name=Path(path).name))
        ack = call(upload_asset, body=body)
    ids[path] = ack.data.video_id
    print(f"uploaded {Path(path).name}: {ack.data.status}")

# 2. Poll each asset until every stage asked for has run.
for path, video_id in ids.items():
    while True:
        asset = call(get_asset, id=video_id)
        if asset.data.status == "completed":
            print(f"completed {Path(path).name}: {asset.data.kind}, {asset.data.page_count} page(s)")
            break
        time.sleep(0.2)

# 3. Page 1 of the PDF, and the boxes on it.
book = ids[pdf]
page = call(get_page, id=book, page=1)
regions = call(get_regions, id=book, page=1)
print(f"page 1 of {page.data.page_count}: {len(page.data.passages)} passages, {len(regions.data.text)} text regions")

# 4. Search the workspace, then ask the PDF.
found = call(search, body=SearchBody(query=query, limit=5))
best = found.data.hits[0] if found.data.hits else None
print(f'search "{query}": {len(found.data.hits)} hits, best {f"{best.file_name} page {best.page}" if best else "none"}')
answer = call(recall, video_id=book, body=RecallBody(query=query))
print(f"recall: evidence {answer.data.evidence}, {len(answer.data.moments)} moment(s)")

# 5. People: group the faces (in the background), then name the largest group. A second re-group
# asked for while one runs is 409 busy, and so is any change to People until it is done.
call(recluster_people)
call(recluster_people)
people = call(list_people)
while people.data.regrouping:
    time.sleep(0.2)
    people = call(list_people)
if people.data.people:
    first = people.data.people[0]
    renamed = call(update_person, id=first.person_id, body=UpdatePersonBody(name="Ada"))
    print(f"named a person of {renamed.data.face_count} face(s): {renamed.data.name}")
people = call(list_people)
print(f"people: {', '.join(p.name or '(unnamed)' for p in people.data.people)}")

# 6. Page through every asset, two at a time, until has_more is false.
offset = 0
pages = 0
while True:
    listed = call(list_assets, limit=2, offset=offset)
    pages += 1
    offset += len(listed.data)
    if not listed.pagination.has_more:
        break
print(f"listed {offset} assets in {pages} pages")
print(f"waited out: {waited['rate_limited']} rate limited, {waited['busy']} busy")
