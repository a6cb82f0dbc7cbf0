"""The team layer: `<repository root>/.claude/memory.agd`, committed with the code.

- `driver`: `agd-memory merge-driver %O %A %B %P`, git's merge of the file by block id
  (`agd.merge3`), written atomically to `%A`;
- `setup`: `agd-memory team init`, the file, the `.gitattributes` line and the driver's
  registration in the clone's git config, through a launcher that outlives plugin updates;
- `markers`: a file that already holds git's conflict markers: the one-line message every
  reader gives, and `agd-memory team resolve`, which merges each marked region by id;
- `registration`: whether a clone whose `.gitattributes` asks for the driver has it
  registered (SessionStart and doctor), cheaply.
"""

DRIVER = "agd-memory"
"""The merge driver's name in `.gitattributes` (`merge=agd-memory`) and git's config."""
