-- Acceptance records are signed (Ed25519, issue 30): the id of the key that signed the
-- record (the key itself is kept in DATA/control/keys, never here) and the signature over
-- the record's body (its RFC 8785 canonical JSON), base64. A record issued before V3 has
-- neither and verify names it as not signed.
ALTER TABLE record ADD COLUMN key_id VARCHAR(16);
ALTER TABLE record ADD COLUMN signature VARCHAR(100);
