-- The statement adcamp sends to create a campaign (a campaign's INSERT with
-- its count change, its history record and its replay record, as WITH
-- queries of one statement; see recordStatement in
-- internal/postgres/records.go), with values made up by pgbench for each
-- transaction. Run by bench/pgbench.sh, which sets :account. Colons that
-- are not variables are written chr(58): pgbench reads ":name" anywhere
-- as a variable.
\set n random(1, 1000000000)
\set m random(1, 1000000000)
WITH main AS (INSERT INTO campaigns (id, account_id, environment, name, budget_daily, marketplace, channel_account_id, start_date, end_date, status, version, created_at, updated_at, notes)
 VALUES ('cmp_' || lpad(to_hex((extract(epoch from clock_timestamp())*1000000)::bigint), 14, '0') || md5((:n)::int::text), :account, 'production', 'Campaign ' || (:n)::int::text, 10000, 'US', NULL, NULL, NULL, 'active', 1, 1764100000000000, 1764100000000000, '')),
counted AS (INSERT INTO campaign_count_changes (account_id, environment, status, n) VALUES (:account, 'production', 'active', 1)),
history AS (INSERT INTO changes (id, occurred_at, account_id, environment, entity_type, entity_id, campaign_id, ad_group_id, operation, changes, actor_type, actor_id, request_id, idempotency_key, transaction_id)
VALUES ('chg_' || lpad(to_hex((extract(epoch from clock_timestamp())*1000000)::bigint), 14, '0') || md5((:n)::int::text), 1764100000000000, :account, 'production', 'campaign', 'cmp_' || md5((:n)::int::text), 'cmp_' || md5((:n)::int::text), NULL, 'create',
'{"name"' || chr(58) || '{"old"' || chr(58) || 'null,"new"' || chr(58) || '"Campaign 123456"},"budget_daily"' || chr(58) || '{"old"' || chr(58) || 'null,"new"' || chr(58) || '100.00},"marketplace"' || chr(58) || '{"old"' || chr(58) || 'null,"new"' || chr(58) || '"US"},"status"' || chr(58) || '{"old"' || chr(58) || 'null,"new"' || chr(58) || '"active"}}',
'api_key', 'key_01JXYZABCDEFGHJKMNPQRSTVWX', 'req_' || md5((:m)::int::text), '', 'txn_' || md5((:m)::int::text))),
saved AS (INSERT INTO request_records (scope, token, request_hash, status, header, body, created_at, expires_at) VALUES ('sig' || chr(58) || 'key_01JXYZABCDEFGHJKMNPQRSTVWX', md5((:n)::int::text) || md5((:m)::int::text), decode(md5((:n)::int::text),'hex'), 201, convert_to('{"Content-Type"' || chr(58) || '["application/json"]}', 'UTF8'), convert_to(repeat('x', 450),'UTF8'), 1764100000000000, 1764100300000000) ON CONFLICT (scope, token) DO NOTHING RETURNING 1)
SELECT CASE WHEN NOT EXISTS (SELECT FROM saved) THEN adcamp_record_taken() END;
