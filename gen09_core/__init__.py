"""gen09: candidate edits in, valid and distinct repository bytes out.

Plugin authors import ``hookimpl`` from here; library users call
``gen09_core.pipeline.run_batch``.
"""

import pluggy

hookimpl = pluggy.HookimplMarker("gen09")

__all__ = ["hookimpl"]
