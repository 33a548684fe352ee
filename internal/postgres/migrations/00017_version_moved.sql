-- +goose Up
-- Locks: nothing in use: it creates a function.
-- An update of a campaign read without a lock (store.WithVersionGuards) is
-- sent with the commit, guarded by the version read: if another request
-- changed the row in between, the statement must fail, so that PostgreSQL
-- skips the rest of the pipeline and the transaction is rolled back. This
-- raises that failure, SQLSTATE AD002; the store then runs the transaction
-- again with row locks.
-- +goose StatementBegin
CREATE FUNCTION adcamp_version_moved() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RAISE EXCEPTION 'the row was changed since it was read' USING ERRCODE = 'AD002';
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION adcamp_version_moved();
