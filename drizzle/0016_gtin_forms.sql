ALTER TABLE "products" DROP CONSTRAINT "products_barcode_check";--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_barcode_check" CHECK ("products"."barcode" ~ '^[0-9]{8,14}$');--> statement-breakpoint
-- Hand-written: an EAN-8 stored in its 13-digit form (five leading zeros, as GS1 pads GTIN-8) takes its 8-digit
-- form, the one lookups use now; where both forms were stored, the padded row keeps its code.
UPDATE products p SET barcode = substr(p.barcode, 6)
WHERE p.barcode ~ '^00000[0-9]{8}$'
  AND NOT EXISTS (SELECT 1 FROM products o WHERE o.barcode = substr(p.barcode, 6));
