-- Knowledge collections made in the console (issue 12): documents uploaded to the
-- account rather than read from the knowledge folder. The folder sync never touches
-- them (it only removes folder collections whose folder is gone).
ALTER TABLE knowledge_collections ADD COLUMN source text NOT NULL DEFAULT 'folder' CHECK (source IN ('folder', 'console'));
