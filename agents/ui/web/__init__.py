"""``texas42 serve``: the web app, a table to play at and a viewer of records, over a JSON API.

``view`` turns a one-table state into JSON as one seat (or an onlooker) may see it;
``games`` holds the games being played (a person and bots at one table, in memory, with a cap
and expiry); ``watch`` reads records from the served folder or an upload and replays them
frame by frame with the solver's verdicts; ``app`` is the ASGI app (FastAPI, the optional
extra ``texas42[web]``) and ``static/`` its pages. Only ``app`` imports FastAPI.
"""
