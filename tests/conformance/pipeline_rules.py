"""rules-pipeline.json handlers for the rules layer: kind -> fn(case, whole_file)."""

HANDLERS: dict = {}
