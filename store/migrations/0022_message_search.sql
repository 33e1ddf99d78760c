-- Message search: the words of a message (content, names, company, email, note, address,
-- answers) in each engine's full-text index, and its phone numbers as digits in indexed
-- columns. Both are kept in step with every write by the database itself: SQLite's FTS5
-- table by triggers, PostgreSQL's tsvector and both engines' digits as generated columns.
--
-- A number's digits: the separators people write ( -().+/) removed, and a leading 1 of an
-- 11-digit number (+1, the North American country code) dropped, as answerdesk.PhoneDigits
-- normalises a number searched for.
ALTER TABLE messages ADD COLUMN caller_digits TEXT GENERATED ALWAYS AS (CASE WHEN length(replace(replace(replace(replace(replace(replace(replace(caller_id, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '')) = 11 AND replace(replace(replace(replace(replace(replace(replace(caller_id, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '') LIKE '1%' THEN substr(replace(replace(replace(replace(replace(replace(replace(caller_id, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', ''), 2) ELSE replace(replace(replace(replace(replace(replace(replace(caller_id, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '') END) {{if .Postgres}}STORED{{else}}VIRTUAL{{end}};
CREATE INDEX messages_caller_digits ON messages(caller_digits);
ALTER TABLE messages ADD COLUMN phone_digits TEXT GENERATED ALWAYS AS (CASE WHEN length(replace(replace(replace(replace(replace(replace(replace(phone, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '')) = 11 AND replace(replace(replace(replace(replace(replace(replace(phone, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '') LIKE '1%' THEN substr(replace(replace(replace(replace(replace(replace(replace(phone, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', ''), 2) ELSE replace(replace(replace(replace(replace(replace(replace(phone, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '') END) {{if .Postgres}}STORED{{else}}VIRTUAL{{end}};
CREATE INDEX messages_phone_digits ON messages(phone_digits);
ALTER TABLE messages ADD COLUMN alt_phone_digits TEXT GENERATED ALWAYS AS (CASE WHEN length(replace(replace(replace(replace(replace(replace(replace(alt_phone, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '')) = 11 AND replace(replace(replace(replace(replace(replace(replace(alt_phone, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '') LIKE '1%' THEN substr(replace(replace(replace(replace(replace(replace(replace(alt_phone, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', ''), 2) ELSE replace(replace(replace(replace(replace(replace(replace(alt_phone, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '') END) {{if .Postgres}}STORED{{else}}VIRTUAL{{end}};
CREATE INDEX messages_alt_phone_digits ON messages(alt_phone_digits);
ALTER TABLE messages ADD COLUMN phone_number_digits TEXT GENERATED ALWAYS AS (CASE WHEN length(replace(replace(replace(replace(replace(replace(replace(phone_number, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '')) = 11 AND replace(replace(replace(replace(replace(replace(replace(phone_number, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '') LIKE '1%' THEN substr(replace(replace(replace(replace(replace(replace(replace(phone_number, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', ''), 2) ELSE replace(replace(replace(replace(replace(replace(replace(phone_number, ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', ''), '/', '') END) {{if .Postgres}}STORED{{else}}VIRTUAL{{end}};
CREATE INDEX messages_phone_number_digits ON messages(phone_number_digits);
{{if .Postgres}}
-- PostgreSQL's parser reads an email address or a URL as one word, and keeps accents: the
-- text is indexed with ASCII punctuation as spaces and common Latin accents folded
-- (answerdesk's query folds them alike), as SQLite's unicode61 tokenizer reads it.
ALTER TABLE messages ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('simple',
	translate(regexp_replace(coalesce(content, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(company_name, '') || ' ' || coalesce(receiver_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(note, '') || ' ' || coalesce(address, '') || ' ' || coalesce(address2, '') || ' ' || coalesce(city, '') || ' ' || coalesce(state, '') || ' ' || coalesce(zip, '') || ' ' || coalesce(answers, ''), '[[:punct:]]+', ' ', 'g'),
		'áàâäãåāăąéèêëēĕėęěíìîïĩīĭįıóòôöõøōŏőúùûüũūŭůűųýÿñńňçćčďđğĺľłŕřśšşťţźżžÁÀÂÄÃÅĀĂĄÉÈÊËĒĔĖĘĚÍÌÎÏĨĪĬĮİÓÒÔÖÕØŌŎŐÚÙÛÜŨŪŬŮŰŲÝŸÑŃŇÇĆČĎĐĞĹĽŁŔŘŚŠŞŤŢŹŻŽ', 'aaaaaaaaaeeeeeeeeeiiiiiiiiiooooooooouuuuuuuuuuyynnncccddglllrrsssttzzzAAAAAAAAAEEEEEEEEEIIIIIIIIIOOOOOOOOOUUUUUUUUUUYYNNNCCCDDGLLLRRSSSTTZZZ'))) STORED;
CREATE INDEX messages_search ON messages USING GIN (search);
{{else}}
CREATE VIRTUAL TABLE message_fts USING fts5(content, first_name, last_name, company_name, receiver_name, email, note, address, address2, city, state, zip, answers,
	content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER message_fts_insert AFTER INSERT ON messages BEGIN
	INSERT INTO message_fts(rowid, content, first_name, last_name, company_name, receiver_name, email, note, address, address2, city, state, zip, answers) VALUES (new.id, new.content, new.first_name, new.last_name, new.company_name, new.receiver_name, new.email, new.note, new.address, new.address2, new.city, new.state, new.zip, new.answers);
END;
CREATE TRIGGER message_fts_delete AFTER DELETE ON messages BEGIN
	INSERT INTO message_fts(message_fts, rowid, content, first_name, last_name, company_name, receiver_name, email, note, address, address2, city, state, zip, answers) VALUES ('delete', old.id, old.content, old.first_name, old.last_name, old.company_name, old.receiver_name, old.email, old.note, old.address, old.address2, old.city, old.state, old.zip, old.answers);
END;
CREATE TRIGGER message_fts_update AFTER UPDATE OF content, first_name, last_name, company_name, receiver_name, email, note, address, address2, city, state, zip, answers ON messages BEGIN
	INSERT INTO message_fts(message_fts, rowid, content, first_name, last_name, company_name, receiver_name, email, note, address, address2, city, state, zip, answers) VALUES ('delete', old.id, old.content, old.first_name, old.last_name, old.company_name, old.receiver_name, old.email, old.note, old.address, old.address2, old.city, old.state, old.zip, old.answers);
	INSERT INTO message_fts(rowid, content, first_name, last_name, company_name, receiver_name, email, note, address, address2, city, state, zip, answers) VALUES (new.id, new.content, new.first_name, new.last_name, new.company_name, new.receiver_name, new.email, new.note, new.address, new.address2, new.city, new.state, new.zip, new.answers);
END;
INSERT INTO message_fts(message_fts) VALUES ('rebuild');
{{end}}
