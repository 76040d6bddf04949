"""rules-pipeline.json handlers for the engine layer: kind -> fn(case, whole_file)."""

HANDLERS: dict = {}
