{{- if .Postgres -}}
-- PostgreSQL's message index column, computed about three times faster on every message
-- written: accents are folded only in a message with a letter outside ASCII (translate()
-- reads its whole list of accented letters for each character of the text, half the cost of
-- the column as migration 0022 wrote it), before the punctuation is replaced (the two steps
-- commute), and each number's separators go in one regular expression. The words indexed
-- are those of migration 0022. Adding the column rewrites the messages table.
ALTER TABLE messages DROP COLUMN search;
ALTER TABLE messages ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('simple',
	regexp_replace(CASE WHEN (coalesce(content, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(company_name, '') || ' ' || coalesce(receiver_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(note, '') || ' ' || coalesce(address, '') || ' ' || coalesce(address2, '') || ' ' || coalesce(city, '') || ' ' || coalesce(state, '') || ' ' || coalesce(zip, '') || ' ' || coalesce(answers, '')) ~ '[^[:ascii:]]'
		THEN translate(coalesce(content, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(company_name, '') || ' ' || coalesce(receiver_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(note, '') || ' ' || coalesce(address, '') || ' ' || coalesce(address2, '') || ' ' || coalesce(city, '') || ' ' || coalesce(state, '') || ' ' || coalesce(zip, '') || ' ' || coalesce(answers, ''),
			'áàâäãåāăąéèêëēĕėęěíìîïĩīĭįıóòôöõøōŏőúùûüũūŭůűųýÿñńňçćčďđğĺľłŕřśšşťţźżžÁÀÂÄÃÅĀĂĄÉÈÊËĒĔĖĘĚÍÌÎÏĨĪĬĮİÓÒÔÖÕØŌŎŐÚÙÛÜŨŪŬŮŰŲÝŸÑŃŇÇĆČĎĐĞĹĽŁŔŘŚŠŞŤŢŹŻŽ',
			'aaaaaaaaaeeeeeeeeeiiiiiiiiiooooooooouuuuuuuuuuyynnncccddglllrrsssttzzzAAAAAAAAAEEEEEEEEEIIIIIIIIIOOOOOOOOOUUUUUUUUUUYYNNNCCCDDGLLLRRSSSTTZZZ')
		ELSE coalesce(content, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(company_name, '') || ' ' || coalesce(receiver_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(note, '') || ' ' || coalesce(address, '') || ' ' || coalesce(address2, '') || ' ' || coalesce(city, '') || ' ' || coalesce(state, '') || ' ' || coalesce(zip, '') || ' ' || coalesce(answers, '') END, '[[:punct:]]+', ' ', 'g')
	|| coalesce(' tel' || {{.PhoneDigits "caller_id"}}, '') || coalesce(' tel' || {{.PhoneDigits "phone"}}, '')
	|| coalesce(' tel' || {{.PhoneDigits "alt_phone"}}, '') || coalesce(' tel' || {{.PhoneDigits "phone_number"}}, '')
	|| coalesce(' cid' || {{.PhoneDigits "caller_id"}}, ''))) STORED;
CREATE INDEX messages_search ON messages USING GIN (search);
{{- else -}}
-- PostgreSQL's message index column, rewritten; SQLite's index has nothing to change.
SELECT 1;
{{- end}}
