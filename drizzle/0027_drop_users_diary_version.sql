-- users.diary_version was the per-user diary counter of the releases before 0023. Since 0026 nothing writes it, and
-- the release of 0026 reads it nowhere, so its API processes keep working while this one rolls out. Dropping a column
-- changes the catalog only: no table rewrite, and the lock lasts a moment.
ALTER TABLE "users" DROP COLUMN "diary_version";
