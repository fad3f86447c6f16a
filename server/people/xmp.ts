// XMP sidecar with the named people of a photo as MWG face regions (Metadata Working Group
// "mwg-rs" schema, read by Lightroom, digiKam, Picasa-era tools): each region is a normalized box
// whose x, y are its centre.
export interface XmpRegion {
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (v: number) => (Math.round(v * 1e6) / 1e6).toString();

export function mwgRegionsXmp(width: number, height: number, regions: XmpRegion[]): string {
  const items = regions
    .map(
      (r) => `        <rdf:li>
         <rdf:Description mwg-rs:Name="${esc(r.name)}" mwg-rs:Type="Face">
          <mwg-rs:Area stArea:x="${num(r.x + r.w / 2)}" stArea:y="${num(r.y + r.h / 2)}" stArea:w="${num(r.w)}" stArea:h="${num(r.h)}" stArea:unit="normalized"/>
         </rdf:Description>
        </rdf:li>`,
    )
    .join('\n');
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/"
    xmlns:stDim="http://ns.adobe.com/xap/1.0/sType/Dimensions#"
    xmlns:stArea="http://ns.adobe.com/xmp/sType/Area#">
   <mwg-rs:Regions rdf:parseType="Resource">
    <mwg-rs:AppliedToDimensions stDim:w="${width}" stDim:h="${height}" stDim:unit="pixel"/>
    <mwg-rs:RegionList>
     <rdf:Bag>
${items}
     </rdf:Bag>
    </mwg-rs:RegionList>
   </mwg-rs:Regions>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>
`;
}
