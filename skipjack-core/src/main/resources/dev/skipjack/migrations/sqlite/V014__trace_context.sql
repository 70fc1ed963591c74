-- Skipjack schema, version 14: trace_context, what the enqueuing client's JobInterceptors stored
-- with a job (a JSON object of text, such as OpenTelemetry's W3C traceparent), handed back to them
-- around the handler's run (docs/tracing.md). Its own column, not a key in metadata: metadata is
-- the user's, and nothing of Skipjack's may collide with or be refused in it. NULL for jobs
-- enqueued without interceptors, which is all jobs of a client without them.
ALTER TABLE {{jobs}} ADD COLUMN trace_context TEXT
