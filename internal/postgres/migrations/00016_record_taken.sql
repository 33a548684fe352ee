-- +goose Up
-- Locks: nothing in use: it creates a function.
-- A replay record is saved in the pipeline that commits its request's
-- change (BEGIN, the change, the record, COMMIT, sent at once): if a live
-- record of that name exists, the statement that saves it must fail, so
-- that PostgreSQL skips the COMMIT behind it and the change is rolled
-- back. This raises that failure, SQLSTATE AD001, which the store
-- recognises (store.ErrRecordTaken).
-- +goose StatementBegin
CREATE FUNCTION adcamp_record_taken() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RAISE EXCEPTION 'a live request record has this name' USING ERRCODE = 'AD001';
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION adcamp_record_taken();
