mkproj () 
{ 
    local dir=$1 name=$2 type=$3 scope=$4;
    shift 4;
    mkdir -p $dir/src;
    local refs="";
    local deps="";
    for r in "$@";
    do
        refs="$refs{ \"path\": \"../../libs/$r\" },";
        deps="$deps\"@verity/$r\": \"*\",";
    done;
    refs="[${refs%,}]";
    deps="{${deps%,}}";
    cat > $dir/package.json <<EOF
{
  "name": "@verity/$name",
  "version": "0.0.0",
  "private": true,
  "type": "module",
  "exports": { ".": { "types": "./dist/src/index.d.ts", "default": "./dist/src/index.js" } },
  "dependencies": $deps,
  "nx": { "tags": ["type:$type", "scope:$scope"] }
}
EOF

    cat > $dir/tsconfig.json <<EOF
{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "rootDir": ".", "outDir": "dist", "tsBuildInfoFile": "dist/tsconfig.tsbuildinfo" },
  "include": ["src", "test"],
  "references": $refs
}
EOF

}
