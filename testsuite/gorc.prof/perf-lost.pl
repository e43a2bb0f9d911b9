# gorc.prof: make the first sample of a perf.data a PERF_RECORD_LOST of 5
# samples, in place (same size: the layout of the file is unchanged).
#   perl perf-lost.pl IN >OUT
use strict;
local $/;
open(my $in, '<:raw', $ARGV[0]) or die;
my $d = <$in>;
my ($doff, $dsize) = unpack('Q<Q<', substr($d, 40, 16));
my $at = $doff;
while ($at < $doff + $dsize) {
  my ($type, $misc, $size) = unpack('L<S<S<', substr($d, $at, 8));
  if ($type == 9) {
    substr($d, $at, 4) = pack('L<', 2);
    substr($d, $at + 8, 16) = pack('Q<Q<', 0, 5);
    print $d;
    exit 0;
  }
  $at += $size;
}
die "no sample";
