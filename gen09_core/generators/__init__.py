"""Built-in generator plugins (the ``gen09_generator`` hook): the only code that reaches a model.

A generator is any object with a ``name`` and ``complete(body, endpoint) -> dict`` that sends
one OpenAI chat-completions request body and returns the response body, raising
``gen09_core.llm.TransportError`` when no usable answer arrives (see ``gen09_core.llm``).
"""
