{{- if .Postgres -}}
-- SQLite's message index triggers, rewritten to normalise each of a message's numbers once
-- (PostgreSQL's generated column has nothing to change).
SELECT 1;
{{- else -}}
-- The message index triggers, rewritten to normalise each of a message's numbers once: the
-- separators are removed in a subquery whose result the rest of the expression reads, and
-- the caller's number once for both its words (tel and cid). The words indexed are those of
-- migration 0022, so the index stays as it is.
DROP TRIGGER message_fts_insert;
DROP TRIGGER message_fts_update;
CREATE TRIGGER message_fts_insert AFTER INSERT ON messages BEGIN
	INSERT INTO message_fts(rowid, content, first_name, last_name, company_name, receiver_name, email, note, address, address2, city, state, zip, answers, numbers) VALUES (new.id, new.content, new.first_name, new.last_name, new.company_name, new.receiver_name, new.email, new.note, new.address, new.address2, new.city, new.state, new.zip, new.answers,
		coalesce((SELECT ' tel' || n || ' cid' || n FROM (SELECT {{.PhoneDigits "new.caller_id"}} AS n)), '') || coalesce(' tel' || {{.PhoneDigits "new.phone"}}, '') || coalesce(' tel' || {{.PhoneDigits "new.alt_phone"}}, '') || coalesce(' tel' || {{.PhoneDigits "new.phone_number"}}, ''));
END;
CREATE TRIGGER message_fts_update AFTER UPDATE OF content, first_name, last_name, company_name, receiver_name, email, note, address, address2, city, state, zip, answers, caller_id, phone, alt_phone, phone_number ON messages BEGIN
	DELETE FROM message_fts WHERE rowid = old.id;
	INSERT INTO message_fts(rowid, content, first_name, last_name, company_name, receiver_name, email, note, address, address2, city, state, zip, answers, numbers) VALUES (new.id, new.content, new.first_name, new.last_name, new.company_name, new.receiver_name, new.email, new.note, new.address, new.address2, new.city, new.state, new.zip, new.answers,
		coalesce((SELECT ' tel' || n || ' cid' || n FROM (SELECT {{.PhoneDigits "new.caller_id"}} AS n)), '') || coalesce(' tel' || {{.PhoneDigits "new.phone"}}, '') || coalesce(' tel' || {{.PhoneDigits "new.alt_phone"}}, '') || coalesce(' tel' || {{.PhoneDigits "new.phone_number"}}, ''));
END;
{{- end}}
