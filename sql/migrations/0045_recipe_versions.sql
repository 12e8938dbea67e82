-- Recipe versions (the recipe studio's editor): every save of a workspace recipe is a new row of the same recipe_id
-- with the next version. A row says where it came from (the shipped template, and the version it was saved from),
-- a short note on what changed, and the document as it was written: body is jsonb, which keeps no key order, and
-- the editor and its diff show a document in the order a person wrote it.
ALTER TABLE workspace_recipes
  ADD COLUMN based_on         text,
  ADD COLUMN based_on_version integer,
  ADD COLUMN note             text CHECK (char_length(note) <= 200),
  ADD COLUMN source           text;
