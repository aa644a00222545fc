-- Hand-written. The catalog's change notifications fire in every session_replication_role. An import's writers run
-- their batches as replicas, so that PostgreSQL skips the per-row foreign-key checks they make once per batch
-- themselves (see the importer); these statement triggers must still tell API processes that the catalog changed.
ALTER TABLE "products" ENABLE ALWAYS TRIGGER "products_changed_notify";--> statement-breakpoint
ALTER TABLE "product_aliases" ENABLE ALWAYS TRIGGER "product_aliases_changed_notify";
