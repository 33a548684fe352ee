-- The PostgreSQL ceiling's create (../shared/bench/ceiling, a team tool
-- kept outside this repository): one INSERT into a table of one index.
-- Run by bench/pgbench.sh, which creates the table.
\set n random(1, 1000000000)
INSERT INTO ceiling (name, budget_daily, marketplace, status, created_at, updated_at)
VALUES ('Campaign ' || (:n)::int::text, 100.0, 'US', 'active', 1764100000000000, 1764100000000000) RETURNING id;
