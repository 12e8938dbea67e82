-- A post a phone's run handed to a VA (issue #51): comment text is a person's work, so where a routine reaches a post
-- to comment on, the phone reports it and the VA gets a task. The task keeps the post's author, the account it is
-- commented from, the post's address when the phone knew it and the frame the phone saw (a stored object's path).
ALTER TABLE tasks ADD COLUMN hand_over jsonb;
