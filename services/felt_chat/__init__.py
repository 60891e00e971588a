"""felt_chat owns table chat: who may speak at a table (membership: seated or watching), the
500-character plain-text rule, per-participant throttling, idempotent posts, the recent
history of each table (last 100 messages) and the chat event the gateway fans out. Everything
lives in Redis; the service is stateless and may run as several replicas (see docs/chat.md).

Chat is separate from play: nothing in a poker action waits for or depends on chat."""
