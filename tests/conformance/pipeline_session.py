"""rules-pipeline.json handlers for the session layer: kind -> fn(case, whole_file)."""

HANDLERS: dict = {}
