"""Everything specific to Claude Code: hook payloads and output, headless `claude -p`, transcripts."""
