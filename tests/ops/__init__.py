"""Operations: the deployment pieces (the compose file's proxy) run for real, without Docker."""
