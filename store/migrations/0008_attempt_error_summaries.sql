-- Attempt errors recorded before this migration are Go's error text, which names the
-- service's DNS resolver ("lookup x on 10.0.0.2:53") and the addresses a destination resolved
-- to ("dial tcp 127.0.0.1:8080"); the delivery log shows them to the customer (issue 12).
-- New attempts record a category and the configured host (dispatch.WebhookResult.Summary);
-- here the old ones keep only their category. Only the HTTP client's errors ('Post "...')
-- are rewritten.
UPDATE dispatch_attempts SET error = CASE
	WHEN error LIKE '%webhook destination refused%scheme%' THEN 'blocked: the URL''s scheme is not http or https'
	WHEN error LIKE '%webhook destination refused%' THEN 'blocked: the destination resolves to a private, loopback or reserved address, which deliveries may not reach'
	WHEN error LIKE '%invalid webhook%' THEN 'invalid: the request cannot be built from the method''s configuration'
	WHEN error LIKE '%no such host%' THEN 'dns: no such host'
	WHEN error LIKE '%lookup %' THEN 'dns: lookup failed'
	WHEN error LIKE '%Client.Timeout%' OR error LIKE '%deadline exceeded%' OR error LIKE '%i/o timeout%' THEN 'timeout after 10s'
	WHEN error LIKE '%connection refused%' THEN 'connect: refused'
	WHEN error LIKE '%connection reset%' OR error LIKE '%broken pipe%' THEN 'connect: connection reset'
	WHEN error LIKE '%unreachable%' THEN 'connect: unreachable'
	WHEN error LIKE '%HTTPS client%' OR error LIKE '%tls:%' OR error LIKE '%x509:%' OR error LIKE '%certificate%' THEN 'tls: the handshake failed'
	WHEN error LIKE '%EOF%' THEN 'http: the connection closed without an answer'
	ELSE 'network: the request failed'
END
WHERE error LIKE 'Post "%';
