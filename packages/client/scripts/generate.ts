import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/** The client's types from the served OpenAPI document, as `openapi-typescript` writes them. */
export async function generateTypes(document: object): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], { alphabetize: false });
  return COMMENT_HEADER + astToString(ast);
}
