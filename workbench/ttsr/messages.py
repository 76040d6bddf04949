"""The reference's warning texts (``logger.warn`` messages users and tests match on), in one place
for the manager and its judged-rule half."""

MSG_INVALID_REGEX = "TTSR condition has invalid regex pattern, skipping condition"
MSG_INVALID_SCOPE_TOKEN = "TTSR scope token is invalid, skipping token"
MSG_SCOPE_EXCLUDES_ALL = "TTSR scope excludes all streams, skipping rule"
MSG_AST_FAILED = "TTSR ast match failed, treating as no match"
