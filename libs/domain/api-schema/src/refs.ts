/** Where a named schema lives in the OpenAPI document. */
export function componentRef(name: string): string {
  return `#/components/schemas/${name}`;
}
